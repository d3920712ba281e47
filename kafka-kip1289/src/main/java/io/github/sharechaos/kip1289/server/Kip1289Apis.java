package io.github.sharechaos.kip1289.server;

import io.github.sharechaos.kip1289.message.AddShareAcksToTxnRequestData;
import io.github.sharechaos.kip1289.message.AddShareAcksToTxnResponseData;
import io.github.sharechaos.kip1289.requests.AddShareAcksToTxnRequest;
import io.github.sharechaos.kip1289.requests.AddShareAcksToTxnResponse;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.MetadataCache;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.common.TransactionVersion;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;
import java.util.function.BiConsumer;

import kafka.coordinator.transaction.TransactionCoordinator;
import kafka.network.RequestChannel;
import kafka.server.AuthHelper;
import kafka.server.KafkaConfig;
import kafka.server.ReplicaManager;
import kafka.server.RequestHandlerHelper;
import kafka.server.share.Kip1289PendingAcks;
import kafka.server.share.SharePartitionManager;
import scala.reflect.ClassTag$;
import scala.runtime.BoxedUnit;

/**
 * KafkaApis' handler of KIP-1289's two RPCs: KafkaApis builds one from its
 * own collaborators (the hook in KafkaApis.scala) and dispatches both keys
 * here. What each RPC does, and why, is docs/KIP1289-ON-KAFKA.md.
 */
public class Kip1289Apis {

    private static final Logger log = LoggerFactory.getLogger(Kip1289Apis.class);

    private final Kip1289BrokerConfig kipConfig;
    private final RequestHandlerHelper requestHelper;
    private final AuthHelper authHelper;
    private final TransactionCoordinator txnCoordinator;
    private final MetadataCache metadataCache;
    private final Kip1289PendingAcks pendingAcks;
    private final TxnShareAcknowledgeHandler txnShareAcknowledge;

    public Kip1289Apis(
        KafkaConfig config,
        RequestHandlerHelper requestHelper,
        AuthHelper authHelper,
        TransactionCoordinator txnCoordinator,
        MetadataCache metadataCache,
        ReplicaManager replicaManager,
        SharePartitionManager sharePartitionManager
    ) {
        this.kipConfig = Kip1289BrokerConfig.from(config.originals());
        this.requestHelper = requestHelper;
        this.authHelper = authHelper;
        this.txnCoordinator = txnCoordinator;
        this.metadataCache = metadataCache;
        this.pendingAcks = new Kip1289PendingAcks(kipConfig.pendingLock(), replicaManager);
        this.txnShareAcknowledge = new TxnShareAcknowledgeHandler(requestHelper, authHelper, metadataCache,
            replicaManager, sharePartitionManager, pendingAcks);
        log.info("KIP-1289: AddShareAcksToTxn key {}, TxnShareAcknowledge key {} (versions {}-1, to the share-partition leader), pending lock {}",
            kipConfig.addShareAcksToTxnKey(), kipConfig.txnShareAcknowledgeKey(),
            io.github.sharechaos.kip1289.protocol.Kip1289ApiKeys.TXN_SHARE_ACKNOWLEDGE_MIN_VERSION, kipConfig.pendingLock());
    }

    public Kip1289BrokerConfig kipConfig() {
        return kipConfig;
    }

    /**
     * AddShareAcksToTxn, at the transaction coordinator: enlists the named
     * input partitions in the producer's transaction, so that the transaction
     * coordinator's WriteTxnMarkers reach the leaders that hold the pending
     * acknowledgements (docs/KIP1289-ON-KAFKA.md, "How the outcome reaches the
     * leader"). The producer id and epoch are checked by the transaction
     * coordinator itself, as for AddOffsetsToTxn: an older epoch is
     * PRODUCER_FENCED, another producer id INVALID_PRODUCER_ID_MAPPING.
     */
    public void handleAddShareAcksToTxn(RequestChannel.Request request, RequestLocal requestLocal) {
        AddShareAcksToTxnRequest req = request.body(ClassTag$.MODULE$.apply(AddShareAcksToTxnRequest.class));
        AddShareAcksToTxnRequestData data = req.data();
        RequestContext ctx = request.context();

        Errors refused = refuseAddShareAcks(ctx, data);
        if (refused != Errors.NONE) {
            sendAddShareAcksResponse(request, refused);
            return;
        }
        Set<TopicPartition> partitions = new HashSet<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> partitions.add(new TopicPartition(t.name(), p))));
        txnCoordinator.handleAddPartitionsToTransaction(
            data.transactionalId(),
            data.producerId(),
            data.producerEpoch(),
            partitions,
            error -> {
                sendAddShareAcksResponse(request, error);
                return BoxedUnit.UNIT;
            },
            clusterTransactionVersion(),
            requestLocal);
    }

    /** The request's first failed check, or NONE. */
    private Errors refuseAddShareAcks(RequestContext ctx, AddShareAcksToTxnRequestData data) {
        if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            return Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        }
        if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, data.groupId())) {
            return Errors.GROUP_AUTHORIZATION_FAILED;
        }
        if (data.groupId().isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        for (AddShareAcksToTxnRequestData.AddShareAcksToTxnTopic t : data.topics()) {
            // The member reads these records: READ on the topic, as ShareAcknowledge wants.
            if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.name())) {
                return Errors.TOPIC_AUTHORIZATION_FAILED;
            }
            for (int p : t.partitions()) {
                if (!metadataCache.contains(new TopicPartition(t.name(), p))) {
                    return Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
            }
        }
        return Errors.NONE;
    }

    /**
     * The transaction version the transaction coordinator records for this
     * addition. AddOffsetsToTxn passes TV_0 because only pre-TV2 clients send
     * it; AddShareAcksToTxn is sent by every client of the KIP, and
     * prepareAddPartitions stores the version it is given on the transaction,
     * so passing TV_0 would downgrade a TV2 transaction until its EndTxn (a
     * timeout abort in between would then not bump the epoch). The cluster's
     * finalized transaction.version is what a current client uses.
     */
    private TransactionVersion clusterTransactionVersion() {
        short level = metadataCache.features().finalizedFeatures()
            .getOrDefault(TransactionVersion.FEATURE_NAME, (short) 0);
        return TransactionVersion.fromFeatureLevel(level);
    }

    private void sendAddShareAcksResponse(RequestChannel.Request request, Errors error) {
        requestHelper.sendMaybeThrottle(request,
            new AddShareAcksToTxnResponse(new AddShareAcksToTxnResponseData().setErrorCode(error.code())));
    }

    /**
     * TxnShareAcknowledge v1, at the share-partition leader: stages the
     * acknowledgements as pending in the producer's transaction
     * (TxnShareAcknowledgeHandler).
     */
    public void handleTxnShareAcknowledge(RequestChannel.Request request, RequestLocal requestLocal) {
        txnShareAcknowledge.handle(request);
    }

    /**
     * The hook in KafkaApis.handleWriteTxnMarkersRequest: a marker's append to
     * tp answered error (at markerOffset when NONE); complete gets the answer
     * for tp once the pending acknowledgements the marker ends on this leader
     * are settled (docs/KIP1289-ON-KAFKA.md, section 7). A failed append is
     * passed on unchanged: the transaction coordinator resends the marker.
     */
    public void settleAfterMarker(TopicPartition tp, long producerId, short producerEpoch, TransactionResult result,
                                  Errors error, long markerOffset, BiConsumer<TopicPartition, Errors> complete) {
        if (error != Errors.NONE) {
            complete.accept(tp, error);
            return;
        }
        pendingAcks.settle(tp, producerId, producerEpoch, result, markerOffset).whenComplete((settled, ex) -> {
            if (ex != null) {
                log.error("KIP-1289: settling the marker of producer {} on {} failed", producerId, tp, ex);
                complete.accept(tp, Errors.NOT_LEADER_OR_FOLLOWER);
                return;
            }
            complete.accept(tp, settled);
        });
    }

    private boolean authorize(RequestContext ctx, AclOperation op, ResourceType type, String name) {
        return authHelper.authorize(ctx, op, type, name, true, true, 1);
    }
}
