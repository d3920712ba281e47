package io.github.sharechaos.kip1289.requests;

import io.github.sharechaos.kip1289.message.AddShareAcksToTxnResponseData;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.requests.AbstractResponse;

import java.util.Map;

/** KIP-1289 AddShareAcksToTxn's response: one error code, as AddOffsetsToTxn's. */
public class AddShareAcksToTxnResponse extends AbstractResponse {

    private final AddShareAcksToTxnResponseData data;

    public AddShareAcksToTxnResponse(AddShareAcksToTxnResponseData data) {
        super(ApiKeys.ADD_SHARE_ACKS_TO_TXN);
        this.data = data;
    }

    @Override
    public Map<Errors, Integer> errorCounts() {
        return errorCounts(Errors.forCode(data.errorCode()));
    }

    @Override
    public int throttleTimeMs() {
        return data.throttleTimeMs();
    }

    @Override
    public void maybeSetThrottleTimeMs(int throttleTimeMs) {
        data.setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public AddShareAcksToTxnResponseData data() {
        return data;
    }

    public static AddShareAcksToTxnResponse parse(Readable readable, short version) {
        return new AddShareAcksToTxnResponse(new AddShareAcksToTxnResponseData(readable, version));
    }

    @Override
    public boolean shouldClientThrottle(short version) {
        return true;
    }

    @Override
    public String toString() {
        return data.toString();
    }
}
