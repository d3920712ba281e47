package io.github.sharechaos.kip1289.server;

import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeRequestData;
import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeResponseData;
import io.github.sharechaos.kip1289.requests.TxnShareAcknowledgeRequest;
import io.github.sharechaos.kip1289.requests.TxnShareAcknowledgeResponse;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.MetadataCache;
import org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import kafka.cluster.Partition;
import kafka.network.RequestChannel;
import kafka.server.AuthHelper;
import kafka.server.ReplicaManager;
import kafka.server.RequestHandlerHelper;
import kafka.server.share.Kip1289PendingAcks;
import kafka.server.share.Kip1289StageRequest;
import kafka.server.share.Kip1289Staging;
import kafka.server.share.SharePartitionManager;
import scala.Option;
import scala.reflect.ClassTag$;

/**
 * TxnShareAcknowledge v1, at the share-partition leader
 * (docs/KIP1289-ON-KAFKA.md, sections 3, 5 and 9). Per partition, in order:
 * the topic known (UNKNOWN_TOPIC_ID) and readable (TOPIC_AUTHORIZATION_FAILED),
 * the batches well formed (INVALID_REQUEST: first <= last, ascending, not
 * overlapping, type accept, release or reject), this broker the leader
 * (NOT_LEADER_OR_FOLLOWER); the stage offset read; the producer verified with
 * the transaction coordinator (section 9); then the records staged as pending
 * ({@link Kip1289PendingAcks#stage}). The answer waits for all of it.
 */
final class TxnShareAcknowledgeHandler {

    private static final Logger log = LoggerFactory.getLogger(TxnShareAcknowledgeHandler.class);

    private final RequestHandlerHelper requestHelper;
    private final AuthHelper authHelper;
    private final MetadataCache metadataCache;
    private final ReplicaManager replicaManager;
    private final SharePartitionManager sharePartitionManager;
    private final ProducerVerification verification;
    private final Kip1289PendingAcks pendingAcks;

    TxnShareAcknowledgeHandler(RequestHandlerHelper requestHelper, AuthHelper authHelper, MetadataCache metadataCache,
                               ReplicaManager replicaManager, SharePartitionManager sharePartitionManager,
                               Kip1289PendingAcks pendingAcks) {
        this.requestHelper = requestHelper;
        this.authHelper = authHelper;
        this.metadataCache = metadataCache;
        this.replicaManager = replicaManager;
        this.sharePartitionManager = sharePartitionManager;
        this.verification = new ProducerVerification(replicaManager);
        this.pendingAcks = pendingAcks;
    }

    void handle(RequestChannel.Request request) {
        TxnShareAcknowledgeRequest req = request.body(ClassTag$.MODULE$.apply(TxnShareAcknowledgeRequest.class));
        TxnShareAcknowledgeRequestData data = req.data();
        RequestContext ctx = request.context();
        if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            requestHelper.sendMaybeThrottle(request, req.errorResponse(0, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
            return;
        }
        if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            requestHelper.sendMaybeThrottle(request, req.errorResponse(0, Errors.GROUP_AUTHORIZATION_FAILED));
            return;
        }

        Map<TopicIdPartition, Errors> results = new ConcurrentHashMap<>();
        Map<TopicIdPartition, Kip1289StageRequest.Partition> candidates = new HashMap<>();
        for (TxnShareAcknowledgeRequestData.TxnShareAcknowledgeTopic t : data.topics()) {
            Optional<String> name = metadataCache.getTopicName(t.topicId());
            boolean readable = name.isPresent() && authorize(ctx, AclOperation.READ, ResourceType.TOPIC, name.get());
            for (TxnShareAcknowledgeRequestData.TxnShareAcknowledgePartition p : t.partitions()) {
                TopicIdPartition tip = new TopicIdPartition(t.topicId(), p.partitionIndex(), name.orElse(""));
                if (name.isEmpty()) {
                    results.put(tip, Errors.UNKNOWN_TOPIC_ID);
                    continue;
                }
                if (!readable) {
                    results.put(tip, Errors.TOPIC_AUTHORIZATION_FAILED);
                    continue;
                }
                List<ShareAcknowledgementBatch> batches = batches(p);
                if (batches == null) {
                    results.put(tip, Errors.INVALID_REQUEST);
                    continue;
                }
                Option<Partition> local = replicaManager.onlinePartition(tip.topicPartition());
                if (local.isEmpty() || !local.get().isLeader()) {
                    results.put(tip, Errors.NOT_LEADER_OR_FOLLOWER);
                    continue;
                }
                // Read before the verification: see Kip1289PendingAcks.stage.
                long stageOffset = local.get().localLogOrException().highWatermark();
                candidates.put(tip, new Kip1289StageRequest.Partition(batches, stageOffset));
            }
        }

        // One share-partition's verification at a time: Kafka's
        // AddPartitionsToTxnManager keeps one pending verification per
        // transactional id and answers the one a newer replaces with
        // NETWORK_EXCEPTION, so verifying a request's share-partitions at once
        // refused all but one of them (found by the conformance cases of one
        // request's shapes; the workload's sender retried them one by one).
        Map<TopicIdPartition, Errors> verified = new ConcurrentHashMap<>();
        CompletableFuture<Void> verifications = CompletableFuture.completedFuture(null);
        for (TopicIdPartition tip : candidates.keySet()) {
            verifications = verifications.thenCompose(ignored ->
                verification.verify(tip.topicPartition(), data.transactionalId(), data.producerId(), data.producerEpoch())
                    .thenAccept(e -> verified.put(tip, e)));
        }
        verifications
            .thenCompose(ignored -> {
                Map<TopicIdPartition, Kip1289StageRequest.Partition> toStage = new HashMap<>();
                verified.forEach((tip, e) -> {
                    if (e != Errors.NONE) {
                        results.put(tip, e);
                    } else if (candidates.get(tip).batches().isEmpty()) {
                        results.put(tip, Errors.NONE);
                    } else {
                        toStage.put(tip, candidates.get(tip));
                    }
                });
                if (toStage.isEmpty()) {
                    return CompletableFuture.completedFuture(Map.<TopicIdPartition, Errors>of());
                }
                String member = data.memberId() == null ? Kip1289Staging.ANY_HOLDER : data.memberId();
                return pendingAcks.stage(new Kip1289StageRequest(data.groupId(), member, data.transactionalId(),
                    data.producerId(), data.producerEpoch(), toStage), sharePartitionManager);
            })
            .whenComplete((staged, ex) -> {
                if (ex != null) {
                    log.error("KIP-1289: TxnShareAcknowledge of {} failed", data.transactionalId(), ex);
                    candidates.keySet().forEach(tip -> results.putIfAbsent(tip, Errors.UNKNOWN_SERVER_ERROR));
                } else {
                    results.putAll(staged);
                }
                requestHelper.sendMaybeThrottle(request, response(data, results));
            });
    }

    /**
     * The request's batches as Kafka's acknowledge takes them, or null if they
     * are malformed. An empty list stages nothing (answered NONE once the
     * producer is verified).
     */
    private static List<ShareAcknowledgementBatch> batches(TxnShareAcknowledgeRequestData.TxnShareAcknowledgePartition p) {
        List<ShareAcknowledgementBatch> out = new ArrayList<>();
        long previousLast = -1;
        for (TxnShareAcknowledgeRequestData.AcknowledgementBatch b : p.acknowledgementBatches()) {
            byte type = b.acknowledgeType();
            if (b.firstOffset() < 0 || b.firstOffset() > b.lastOffset() || b.firstOffset() <= previousLast
                || type < 1 || type > 3) {
                return null;
            }
            previousLast = b.lastOffset();
            out.add(new ShareAcknowledgementBatch(b.firstOffset(), b.lastOffset(), List.of(type)));
        }
        return out;
    }

    private static TxnShareAcknowledgeResponse response(TxnShareAcknowledgeRequestData data, Map<TopicIdPartition, Errors> results) {
        TxnShareAcknowledgeResponseData out = new TxnShareAcknowledgeResponseData();
        for (TxnShareAcknowledgeRequestData.TxnShareAcknowledgeTopic t : data.topics()) {
            TxnShareAcknowledgeResponseData.TxnShareAcknowledgeTopicResponse rt =
                new TxnShareAcknowledgeResponseData.TxnShareAcknowledgeTopicResponse().setTopicId(t.topicId());
            for (TxnShareAcknowledgeRequestData.TxnShareAcknowledgePartition p : t.partitions()) {
                Errors e = find(results, t.topicId(), p.partitionIndex());
                rt.partitions().add(new TxnShareAcknowledgeResponseData.TxnShareAcknowledgePartitionResponse()
                    .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code()));
            }
            out.topics().add(rt);
        }
        return new TxnShareAcknowledgeResponse(out);
    }

    /** TopicIdPartition equality includes the name, which an unknown topic lacks: look up by id. */
    private static Errors find(Map<TopicIdPartition, Errors> results, Uuid topicId, int partition) {
        for (Map.Entry<TopicIdPartition, Errors> e : results.entrySet()) {
            if (e.getKey().topicId().equals(topicId) && e.getKey().partition() == partition) {
                return e.getValue();
            }
        }
        return Errors.UNKNOWN_SERVER_ERROR;
    }

    private boolean authorize(RequestContext ctx, AclOperation op, ResourceType type, String name) {
        return authHelper.authorize(ctx, op, type, name, true, true, 1);
    }
}
