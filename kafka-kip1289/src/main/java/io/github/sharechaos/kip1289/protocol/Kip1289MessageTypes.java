package io.github.sharechaos.kip1289.protocol;

import io.github.sharechaos.kip1289.message.AddShareAcksToTxnRequestData;
import io.github.sharechaos.kip1289.message.AddShareAcksToTxnResponseData;
import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeRequestData;
import io.github.sharechaos.kip1289.message.TxnShareAcknowledgeResponseData;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What Kafka's generated {@code ApiMessageType} answers for KIP-1289's two
 * types. The generated methods switch on constant keys; ours come from
 * configuration, so the hook sends their {@code default} branches here, and
 * anything that is not ours fails exactly as the generated code fails (same
 * exception, same message).
 */
public final class Kip1289MessageTypes {

    // Both messages are flexible in every version (KIP-482): request header
    // v2 (with tagged fields), response header v1.
    private static final short FLEXIBLE_REQUEST_HEADER_VERSION = 2;
    private static final short FLEXIBLE_RESPONSE_HEADER_VERSION = 1;

    private Kip1289MessageTypes() {
    }

    public static ApiMessageType fromApiKey(short apiKey) {
        if (apiKey == Kip1289ApiKeys.addShareAcksToTxn()) {
            return ApiMessageType.ADD_SHARE_ACKS_TO_TXN;
        }
        if (apiKey == Kip1289ApiKeys.txnShareAcknowledge()) {
            return ApiMessageType.TXN_SHARE_ACKNOWLEDGE;
        }
        throw new UnsupportedVersionException("Unsupported API key " + apiKey);
    }

    public static ApiMessage newRequest(ApiMessageType type) {
        if (type == ApiMessageType.ADD_SHARE_ACKS_TO_TXN) {
            return new AddShareAcksToTxnRequestData();
        }
        if (type == ApiMessageType.TXN_SHARE_ACKNOWLEDGE) {
            return new TxnShareAcknowledgeRequestData();
        }
        throw new UnsupportedVersionException("Unsupported request API key " + type.apiKey());
    }

    public static ApiMessage newResponse(ApiMessageType type) {
        if (type == ApiMessageType.ADD_SHARE_ACKS_TO_TXN) {
            return new AddShareAcksToTxnResponseData();
        }
        if (type == ApiMessageType.TXN_SHARE_ACKNOWLEDGE) {
            return new TxnShareAcknowledgeResponseData();
        }
        throw new UnsupportedVersionException("Unsupported response API key " + type.apiKey());
    }

    public static short requestHeaderVersion(ApiMessageType type, short version) {
        if (isOurs(type)) {
            return FLEXIBLE_REQUEST_HEADER_VERSION;
        }
        throw new UnsupportedVersionException("Unsupported API key " + type.apiKey());
    }

    public static short responseHeaderVersion(ApiMessageType type, short version) {
        if (isOurs(type)) {
            return FLEXIBLE_RESPONSE_HEADER_VERSION;
        }
        throw new UnsupportedVersionException("Unsupported API key " + type.apiKey());
    }

    private static boolean isOurs(ApiMessageType type) {
        return type == ApiMessageType.ADD_SHARE_ACKS_TO_TXN || type == ApiMessageType.TXN_SHARE_ACKNOWLEDGE;
    }
}
