package io.github.sharechaos.kip1289.server;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.transaction.AddPartitionsToTxnManager;

import java.util.concurrent.CompletableFuture;

import kafka.server.ReplicaManager;
import scala.runtime.BoxedUnit;

/**
 * Asks the transaction coordinator whether an input partition is in the
 * ongoing transaction of exactly (producer id, epoch), without adding it: the
 * verification Kafka's group coordinator makes before a TxnOffsetCommit
 * (ReplicaManager.maybeSendPartitionToTransactionCoordinator, verify-only).
 * TxnShareAcknowledge reaches the share-partition leader, not the transaction
 * coordinator, so this is how the leader fences a stale producer and enforces
 * that AddShareAcksToTxn came first (docs/KIP1289-ON-KAFKA.md, section 9).
 *
 * <p>Answers (Kafka's mapping for appends): NONE; INVALID_PRODUCER_EPOCH for
 * another epoch (the coordinator's PRODUCER_FENCED is mapped to it);
 * INVALID_TXN_STATE when the partition is not in the transaction (DEFAULT_ERROR
 * maps TRANSACTION_ABORTABLE to it); INVALID_PRODUCER_ID_MAPPING,
 * NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, NETWORK_EXCEPTION as they come.
 * With transaction.partition.verification.enable=false Kafka skips the check
 * and answers NONE.
 */
final class ProducerVerification {

    private final ReplicaManager replicaManager;

    ProducerVerification(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    CompletableFuture<Errors> verify(TopicPartition tp, String transactionalId, long producerId, short producerEpoch) {
        CompletableFuture<Errors> out = new CompletableFuture<>();
        try {
            replicaManager.maybeSendPartitionToTransactionCoordinator(tp, transactionalId, producerId, producerEpoch,
                RecordBatch.NO_SEQUENCE,
                errorAndGuard -> {
                    out.complete(errorAndGuard._1());
                    return BoxedUnit.UNIT;
                },
                AddPartitionsToTxnManager.TransactionSupportedOperation.DEFAULT_ERROR);
        } catch (RuntimeException e) {
            out.complete(Errors.forException(e));
        }
        return out;
    }
}
