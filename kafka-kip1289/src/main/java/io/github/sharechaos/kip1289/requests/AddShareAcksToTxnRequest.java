package io.github.sharechaos.kip1289.requests;

import io.github.sharechaos.kip1289.message.AddShareAcksToTxnRequestData;
import io.github.sharechaos.kip1289.message.AddShareAcksToTxnResponseData;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * KIP-1289 AddShareAcksToTxn: enlists share acknowledgements in a producer's
 * transaction; sent to the transaction coordinator, like AddOffsetsToTxn.
 */
public class AddShareAcksToTxnRequest extends AbstractRequest {

    private final AddShareAcksToTxnRequestData data;

    public static class Builder extends AbstractRequest.Builder<AddShareAcksToTxnRequest> {
        private final AddShareAcksToTxnRequestData data;

        public Builder(AddShareAcksToTxnRequestData data) {
            super(ApiKeys.ADD_SHARE_ACKS_TO_TXN);
            this.data = data;
        }

        @Override
        public AddShareAcksToTxnRequest build(short version) {
            return new AddShareAcksToTxnRequest(data, version);
        }

        @Override
        public String toString() {
            return data.toString();
        }
    }

    public AddShareAcksToTxnRequest(AddShareAcksToTxnRequestData data, short version) {
        super(ApiKeys.ADD_SHARE_ACKS_TO_TXN, version);
        this.data = data;
    }

    @Override
    public AddShareAcksToTxnRequestData data() {
        return data;
    }

    @Override
    public AddShareAcksToTxnResponse getErrorResponse(int throttleTimeMs, Throwable e) {
        return new AddShareAcksToTxnResponse(new AddShareAcksToTxnResponseData()
            .setErrorCode(Errors.forException(e).code())
            .setThrottleTimeMs(throttleTimeMs));
    }

    public static AddShareAcksToTxnRequest parse(Readable readable, short version) {
        return new AddShareAcksToTxnRequest(new AddShareAcksToTxnRequestData(readable, version), version);
    }
}
