package sharechaos.worker;

import java.util.Objects;

/** An input record by topic, partition and offset; its text is ctp.Src's "topic/partition/offset". */
final class RecordId {
    final String topic;
    final int partition;
    final long offset;

    RecordId(String topic, int partition, long offset) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
    }

    @Override
    public String toString() {
        return topic + "/" + partition + "/" + offset;
    }

    /** ctp.ParseSrc: the topic may itself hold slashes; partition and offset are the last two parts. */
    static RecordId parse(String s, String key, long at) {
        int i = s.lastIndexOf('/');
        int j = i < 0 ? -1 : s.lastIndexOf('/', i - 1);
        if (i < 0 || j < 0) {
            throw new IllegalArgumentException("decode ledger entry " + key + " at " + at + ": parse src \"" + s + "\": not topic/partition/offset");
        }
        try {
            return new RecordId(s.substring(0, j), Integer.parseInt(s.substring(j + 1, i)), Long.parseLong(s.substring(i + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("decode ledger entry " + key + " at " + at + ": parse src \"" + s + "\": " + e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RecordId)) {
            return false;
        }
        RecordId r = (RecordId) o;
        return partition == r.partition && offset == r.offset && topic.equals(r.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset);
    }
}
