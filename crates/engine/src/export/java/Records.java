package barrierlab;

import java.nio.ByteBuffer;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * The two record types of an exported job, chosen so that Flink's serializers write exactly the
 * bytes Barrier Lab counts (plus the 4-byte length header Flink's network serializer adds, which
 * the simulator counts as RECORD_HEADER_BYTES):
 *
 * <ul>
 *   <li>BYTES, a datagen record: Tuple2&lt;Integer, byte[]&gt; = int key (4) + array length (4) +
 *       payload, so a payload of record-size - 8 bytes gives record-size bytes.
 *   <li>KEYED, a keyed operator's (key, count) or (key, sum): Tuple2&lt;Integer, Long&gt; = 4 + 8 =
 *       12 bytes (KEYED_OUTPUT_BYTES without the header).
 * </ul>
 *
 * The payload starts with the record's origin (int) and sequence number (long) when it has room, so
 * a filter can decide exactly as the simulator does.
 */
public final class Records {
    private Records() {}

    public static final TypeInformation<Tuple2<Integer, byte[]>> BYTES =
            Types.TUPLE(Types.INT, Types.PRIMITIVE_ARRAY(Types.BYTE));
    public static final TypeInformation<Tuple2<Integer, Long>> KEYED =
            Types.TUPLE(Types.INT, Types.LONG);

    /** Bytes of a Tuple2&lt;Integer, byte[]&gt; besides its payload. */
    public static final int BYTES_OVERHEAD = 8;
    /** Payload bytes that carry origin and sequence number. */
    public static final int ID_BYTES = 12;

    /** SplitMix64, as the simulator's mix64 (task/operators.rs): same input, same key. */
    public static long mix64(long z) {
        z += 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** A datagen payload of `length` bytes, starting with origin and seq when they fit. */
    public static byte[] payload(int length, int origin, long seq) {
        byte[] payload = new byte[length];
        if (length >= ID_BYTES) {
            ByteBuffer.wrap(payload).putInt(origin).putLong(seq);
        }
        return payload;
    }

    /**
     * The simulator's filter decision input: mix64(origin << 40 ^ seq ^ 0xf117) for datagen records
     * that carry their ids; keyed records carry none, so their key and value stand in (same ratio,
     * other records).
     */
    public static long filterHash(Tuple2<Integer, ?> record) {
        Object value = record.f1;
        if (value instanceof byte[]) {
            byte[] payload = (byte[]) value;
            if (payload.length >= ID_BYTES) {
                ByteBuffer b = ByteBuffer.wrap(payload);
                long origin = b.getInt() & 0xffffffffL;
                long seq = b.getLong();
                return mix64((origin << 40) ^ seq ^ 0xf117L);
            }
            return mix64(((long) record.f0 << 40) ^ payload.length ^ 0xf117L);
        }
        return mix64(((long) record.f0 << 40) ^ (Long) value ^ 0xf117L);
    }

    /** What a window sums: a keyed record's value, 1 for a datagen record (as in the simulator). */
    public static long value(Tuple2<Integer, ?> record) {
        return record.f1 instanceof Long ? (Long) record.f1 : 1L;
    }

    /**
     * A record as a BYTES record, for a union whose inputs differ in type: a keyed record's value
     * goes into an 8-byte payload (16 bytes where the simulator counts 12).
     */
    public static Tuple2<Integer, byte[]> asBytes(Tuple2<Integer, ?> record) {
        if (record.f1 instanceof byte[]) {
            return Tuple2.of(record.f0, (byte[]) record.f1);
        }
        return Tuple2.of(record.f0, ByteBuffer.allocate(8).putLong((Long) record.f1).array());
    }

    /** keyBy(r -> r.f0): Integer keys, so key groups are murmurHash(key) % maxParallelism. */
    public static final class KeyOf<V> implements KeySelector<Tuple2<Integer, V>, Integer> {
        @Override
        public Integer getKey(Tuple2<Integer, V> record) {
            return record.f0;
        }
    }
}
