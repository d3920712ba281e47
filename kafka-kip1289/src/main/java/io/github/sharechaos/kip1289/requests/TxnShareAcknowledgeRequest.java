package io.github.sharechaos.kip1289.requests;

import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeRequestData;
import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeResponseData;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * KIP-1289 TxnShareAcknowledge: stages acknowledgements in a producer's open
 * transaction, as TxnOffsetCommit stages offsets. Version 1 goes to the
 * share-partition's leader (docs/KIP1289-ON-KAFKA.md).
 */
public class TxnShareAcknowledgeRequest extends AbstractRequest {

    private final TxnShareAcknowledgeRequestData data;

    public static class Builder extends AbstractRequest.Builder<TxnShareAcknowledgeRequest> {
        private final TxnShareAcknowledgeRequestData data;

        public Builder(TxnShareAcknowledgeRequestData data) {
            super(ApiKeys.TXN_SHARE_ACKNOWLEDGE);
            this.data = data;
        }

        @Override
        public TxnShareAcknowledgeRequest build(short version) {
            return new TxnShareAcknowledgeRequest(data, version);
        }

        @Override
        public String toString() {
            return data.toString();
        }
    }

    public TxnShareAcknowledgeRequest(TxnShareAcknowledgeRequestData data, short version) {
        super(ApiKeys.TXN_SHARE_ACKNOWLEDGE, version);
        this.data = data;
    }

    @Override
    public TxnShareAcknowledgeRequestData data() {
        return data;
    }

    /** Every partition of the request answered with the error of e. */
    @Override
    public TxnShareAcknowledgeResponse getErrorResponse(int throttleTimeMs, Throwable e) {
        return errorResponse(throttleTimeMs, Errors.forException(e));
    }

    /** Every partition of the request answered with error. */
    public TxnShareAcknowledgeResponse errorResponse(int throttleTimeMs, Errors error) {
        TxnShareAcknowledgeResponseData out = new TxnShareAcknowledgeResponseData().setThrottleTimeMs(throttleTimeMs);
        for (TxnShareAcknowledgeRequestData.TxnShareAcknowledgeTopic topic : data.topics()) {
            TxnShareAcknowledgeResponseData.TxnShareAcknowledgeTopicResponse rt =
                new TxnShareAcknowledgeResponseData.TxnShareAcknowledgeTopicResponse().setTopicId(topic.topicId());
            for (TxnShareAcknowledgeRequestData.TxnShareAcknowledgePartition p : topic.partitions()) {
                rt.partitions().add(new TxnShareAcknowledgeResponseData.TxnShareAcknowledgePartitionResponse()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(error.code()));
            }
            out.topics().add(rt);
        }
        return new TxnShareAcknowledgeResponse(out);
    }

    public static TxnShareAcknowledgeRequest parse(Readable readable, short version) {
        return new TxnShareAcknowledgeRequest(new TxnShareAcknowledgeRequestData(readable, version), version);
    }
}
