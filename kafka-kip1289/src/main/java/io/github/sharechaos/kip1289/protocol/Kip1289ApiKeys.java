package io.github.sharechaos.kip1289.protocol;

/**
 * The API keys of KIP-1289's two RPCs on this broker.
 *
 * <p>Upstream has not allocated them (93 and 94 are taken in Kafka 4.4), so
 * they come from the broker's configuration, as in the suite's Go codec and
 * its reference broker; the defaults are the same placeholders (12890,
 * 12891). Kafka's {@code ApiMessageType} and {@code ApiKeys} are enums whose
 * constants carry their key, built once when the classes load: long before
 * {@code KafkaConfig} is parsed. So the keys are read here from JVM system
 * properties of the same names as the broker configs, which the image's start
 * script copies out of server.properties; {@code Kip1289BrokerConfig} refuses
 * to start a broker whose server.properties names other keys than the ones
 * the JVM was started with.
 *
 * <p>This class must not touch {@code ApiMessageType} or {@code ApiKeys}: it
 * runs inside their class initialization.
 */
public final class Kip1289ApiKeys {

    /** Broker config (and JVM system property) naming AddShareAcksToTxn's key. */
    public static final String ADD_SHARE_ACKS_TO_TXN_KEY_CONFIG = "kip1289.add.share.acks.to.txn.api.key";
    /** Broker config (and JVM system property) naming TxnShareAcknowledge's key. */
    public static final String TXN_SHARE_ACKNOWLEDGE_KEY_CONFIG = "kip1289.txn.share.acknowledge.api.key";

    public static final short DEFAULT_ADD_SHARE_ACKS_TO_TXN_KEY = 12890;
    public static final short DEFAULT_TXN_SHARE_ACKNOWLEDGE_KEY = 12891;

    /**
     * The lowest TxnShareAcknowledge version this broker serves. Version 0 is
     * the KIP as written, sent to the share coordinator; version 1 has the same
     * fields and is sent to the share-partition's leader, where the in-flight
     * state lives (docs/KIP1289-ON-KAFKA.md, "Where TxnShareAcknowledge is
     * handled"). A client learns the routing from the version it negotiates.
     */
    public static final short TXN_SHARE_ACKNOWLEDGE_MIN_VERSION = 1;

    private static final Keys KEYS = Keys.fromSystemProperties();

    private Kip1289ApiKeys() {
    }

    public static short addShareAcksToTxn() {
        return KEYS.addShareAcksToTxn;
    }

    public static short txnShareAcknowledge() {
        return KEYS.txnShareAcknowledge;
    }

    /**
     * Parses one configured key: a non-negative int16. {@code what} names the
     * setting in the error.
     */
    public static short parseKey(String what, Object value) {
        int key;
        try {
            key = Integer.parseInt(String.valueOf(value).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": " + value + " is not an API key", e);
        }
        if (key < 0 || key > Short.MAX_VALUE) {
            throw new IllegalArgumentException(what + ": API key " + key + " is outside 0.." + Short.MAX_VALUE);
        }
        return (short) key;
    }

    /** The pair of keys, checked: both valid and distinct. */
    record Keys(short addShareAcksToTxn, short txnShareAcknowledge) {
        Keys {
            if (addShareAcksToTxn == txnShareAcknowledge) {
                throw new IllegalArgumentException("KIP-1289: both APIs have key " + addShareAcksToTxn
                    + " (" + ADD_SHARE_ACKS_TO_TXN_KEY_CONFIG + ", " + TXN_SHARE_ACKNOWLEDGE_KEY_CONFIG + ")");
            }
        }

        static Keys fromSystemProperties() {
            return new Keys(
                keyOrDefault(ADD_SHARE_ACKS_TO_TXN_KEY_CONFIG, DEFAULT_ADD_SHARE_ACKS_TO_TXN_KEY),
                keyOrDefault(TXN_SHARE_ACKNOWLEDGE_KEY_CONFIG, DEFAULT_TXN_SHARE_ACKNOWLEDGE_KEY));
        }

        private static short keyOrDefault(String property, short dflt) {
            String v = System.getProperty(property);
            return v == null || v.isBlank() ? dflt : parseKey("system property " + property, v);
        }
    }
}
