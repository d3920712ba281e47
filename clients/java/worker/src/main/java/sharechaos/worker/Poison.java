package sharechaos.worker;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The input records no worker can process: Go's ctp.Poison
 * (workloads/ctp/poison.go), every every-th input id from offset. The worker
 * never writes their output and RELEASEs them, so each comes back until the
 * broker archives it at the delivery-count limit (and dead-letters it where
 * the group has a dead-letter topic). The checker knows the poison records
 * from the rule alone, so this one must answer as Go's does for every id:
 * workloads/ctp/testdata/poison_cases.golden.json holds Go's answers.
 */
final class Poison {
    final int every;
    final int offset;

    Poison(int every, int offset) {
        this.every = every;
        this.offset = offset;
    }

    /**
     * Whether the input id is poison. Go parses the digits after "r-" with
     * strconv.Atoi: an optional sign, then ASCII digits within int64, so a
     * signed or huge number still counts and its remainder keeps the
     * dividend's sign (as Java's %). Long.parseLong would also take other
     * scripts' digits, which Atoi refuses: those are checked first.
     */
    boolean is(String id) {
        if (every <= 0 || !id.startsWith("r-")) {
            return false;
        }
        String n = id.substring(2);
        for (int i = 0; i < n.length(); i++) {
            char c = n.charAt(i);
            boolean sign = i == 0 && (c == '+' || c == '-');
            if (!sign && (c < '0' || c > '9')) {
                return false;
            }
        }
        long v;
        try {
            v = Long.parseLong(n);
        } catch (NumberFormatException e) {
            return false; // empty, a lone sign, or out of int64's range: Atoi's error
        }
        return v % every == offset;
    }

    /** The poison records of batch, in batch order (the rest: Worker.without). */
    List<ConsumerRecord<String, String>> of(List<ConsumerRecord<String, String>> batch) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        for (ConsumerRecord<String, String> r : batch) {
            if (r.key() != null && is(r.key())) {
                out.add(r);
            }
        }
        return out;
    }
}
