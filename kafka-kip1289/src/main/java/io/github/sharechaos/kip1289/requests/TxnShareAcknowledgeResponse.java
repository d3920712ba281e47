package io.github.sharechaos.kip1289.requests;

import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeResponseData;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.requests.AbstractResponse;

import java.util.EnumMap;
import java.util.Map;

/** KIP-1289 TxnShareAcknowledge's response: an error code per partition. */
public class TxnShareAcknowledgeResponse extends AbstractResponse {

    private final TxnShareAcknowledgeResponseData data;

    public TxnShareAcknowledgeResponse(TxnShareAcknowledgeResponseData data) {
        super(ApiKeys.TXN_SHARE_ACKNOWLEDGE);
        this.data = data;
    }

    @Override
    public Map<Errors, Integer> errorCounts() {
        Map<Errors, Integer> counts = new EnumMap<>(Errors.class);
        data.topics().forEach(t -> t.partitions().forEach(p -> updateErrorCounts(counts, Errors.forCode(p.errorCode()))));
        return counts;
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
    public TxnShareAcknowledgeResponseData data() {
        return data;
    }

    public static TxnShareAcknowledgeResponse parse(Readable readable, short version) {
        return new TxnShareAcknowledgeResponse(new TxnShareAcknowledgeResponseData(readable, version));
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
