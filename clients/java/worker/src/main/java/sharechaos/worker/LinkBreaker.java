package sharechaos.worker;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.network.ChannelState;
import org.apache.kafka.common.network.Selectable;
import org.apache.kafka.common.network.Selector;

/**
 * Cuts one worker's producer links to one broker, as Go's linkBreaker does
 * for kgo (workloads/ctp/link_breaker.go): the connection to it is closed and
 * new connections fail until heal. It is how partial-produce-failure
 * (ORACLE.md case 7) fails the produce to one output partition's leader
 * inside one worker, where a proxy fault would hit every worker at once.
 *
 * <p>The Java producer has no dialer to wrap. Its one network client (the
 * Sender's NetworkClient, which carries produce and transaction requests
 * alike, as kgo's one client does) talks to the brokers through a Selectable;
 * the breaker puts a proxy in front of it, reached by reflection into
 * KafkaProducer.sender, Sender.client and NetworkClient.selector (fields of
 * kafka-clients 4.2; a missing field fails the install, and the fault reports
 * fault-error instead of firing silently). The proxy, on the Sender's thread:
 * <ul>
 *   <li>refuses connect to the cut node with an IOException (a refused dial);
 *   <li>at its first poll after the cut, closes the node's channel and
 *       reports it as disconnected, so the NetworkClient fails its in-flight
 *       requests as a dropped connection and retries them until the delivery
 *       timeout expires the batch.
 * </ul>
 */
final class LinkBreaker {
    private volatile String cut; // node id cut off, null when healthy
    private volatile boolean closePending;
    private Selectable inner;

    /** Puts the breaker between producer and its network; call right after the producer is built. */
    void install(KafkaProducer<?, ?> producer) throws ReflectiveOperationException {
        Object sender = field(KafkaProducer.class, "sender").get(producer);
        Object client = field(sender.getClass(), "client").get(sender);
        Field sel = field(client.getClass(), "selector");
        inner = (Selectable) sel.get(client);
        Selectable proxy = (Selectable) Proxy.newProxyInstance(Selectable.class.getClassLoader(),
                new Class<?>[] {Selectable.class}, new Handler());
        sel.set(client, proxy);
    }

    boolean installed() {
        return inner != null;
    }

    /** Cuts the links to node (its id, as the NetworkClient names connections). */
    void cut(int node) {
        cut = Integer.toString(node);
        closePending = true;
        if (inner != null) {
            inner.wakeup(); // the Sender may be blocked in poll for a while
        }
    }

    void heal() {
        cut = null;
        closePending = false;
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException ignored) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(c.getName() + "." + name);
    }

    private final class Handler implements InvocationHandler {
        /** The node closed at the last poll, reported once by disconnected(). */
        private String justClosed;

        @Override
        public Object invoke(Object p, Method m, Object[] args) throws Throwable {
            String cutNow = cut;
            switch (m.getName()) {
                case "connect":
                    if (cutNow != null && cutNow.equals(args[0])) {
                        throw new IOException("link cut by the partial-produce-failure fault");
                    }
                    break;
                case "poll":
                    if (closePending && cutNow != null) {
                        closePending = false;
                        // Report only a channel that exists: the NetworkClient
                        // keeps a state for every node it connected to, and a
                        // disconnection of a node it never dialed is an error.
                        boolean open = !(inner instanceof Selector) || ((Selector) inner).channel(cutNow) != null;
                        inner.close(cutNow); // no notification of its own: disconnected() reports it
                        if (open) {
                            justClosed = cutNow;
                        }
                    }
                    break;
                case "disconnected": {
                    @SuppressWarnings("unchecked")
                    Map<String, ChannelState> d = (Map<String, ChannelState>) call(m, args);
                    if (justClosed == null) {
                        return d;
                    }
                    Map<String, ChannelState> merged = new HashMap<>(d);
                    merged.putIfAbsent(justClosed, ChannelState.LOCAL_CLOSE);
                    justClosed = null;
                    return merged;
                }
                default:
                    break;
            }
            return call(m, args);
        }

        private Object call(Method m, Object[] args) throws Throwable {
            try {
                return m.invoke(inner, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
