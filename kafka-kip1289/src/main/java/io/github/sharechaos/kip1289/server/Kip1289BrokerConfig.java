package io.github.sharechaos.kip1289.server;

import io.github.sharechaos.kip1289.protocol.Kip1289ApiKeys;

import org.apache.kafka.common.config.ConfigException;

import java.util.Map;

/**
 * KIP-1289's broker configuration, read from server.properties (Kafka keeps
 * unknown keys in {@code KafkaConfig.originals()}):
 *
 * <pre>
 * kip1289.add.share.acks.to.txn.api.key   default 12890
 * kip1289.txn.share.acknowledge.api.key   default 12891
 * kip1289.pending.lock                    expire (default) | hold
 * </pre>
 *
 * The keys are fixed when Kafka's ApiKeys enum loads, from JVM system
 * properties of the same names ({@link Kip1289ApiKeys}); a server.properties
 * that names other keys than the JVM's would advertise one pair and be
 * configured for another, so the broker refuses to start.
 */
public record Kip1289BrokerConfig(short addShareAcksToTxnKey, short txnShareAcknowledgeKey, PendingLockPolicy pendingLock) {

    public static final String PENDING_LOCK_CONFIG = "kip1289.pending.lock";
    public static final PendingLockPolicy DEFAULT_PENDING_LOCK = PendingLockPolicy.EXPIRE;

    /** Reads and checks the configuration; ConfigException names what is wrong. */
    public static Kip1289BrokerConfig from(Map<String, ?> originals) {
        short add = checkKey(originals, Kip1289ApiKeys.ADD_SHARE_ACKS_TO_TXN_KEY_CONFIG, Kip1289ApiKeys.addShareAcksToTxn());
        short txn = checkKey(originals, Kip1289ApiKeys.TXN_SHARE_ACKNOWLEDGE_KEY_CONFIG, Kip1289ApiKeys.txnShareAcknowledge());
        PendingLockPolicy policy = DEFAULT_PENDING_LOCK;
        Object p = originals.get(PENDING_LOCK_CONFIG);
        if (p != null) {
            try {
                policy = PendingLockPolicy.parse(String.valueOf(p));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(PENDING_LOCK_CONFIG, p, e.getMessage());
            }
        }
        return new Kip1289BrokerConfig(add, txn, policy);
    }

    private static short checkKey(Map<String, ?> originals, String name, short jvmKey) {
        Object v = originals.get(name);
        if (v == null) {
            return jvmKey;
        }
        short configured;
        try {
            configured = Kip1289ApiKeys.parseKey(name, v);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(name, v, e.getMessage());
        }
        if (configured != jvmKey) {
            throw new ConfigException(name, v, "the JVM was started with key " + jvmKey
                + " (system property " + name + "): Kafka's ApiKeys are fixed when the class loads,"
                + " so start the broker with -D" + name + "=" + configured + " (the image's start script does)");
        }
        return configured;
    }
}
