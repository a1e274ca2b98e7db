package barrierlab;


import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.RichCoMapFunction;
import org.apache.flink.streaming.api.functions.windowing.RichWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

import java.time.Duration;

/** The functions of the scenario's operator kinds (sinks are in Sinks). */
public final class Operators {
    private Operators() {}

    /**
     * datagen: record `index` of DataGeneratorSource's number sequence, as the simulator's
     * Datagen::record builds it. Flink splits the sequence into one split per subtask exactly as
     * the simulator splits its records (the first splits take the remainder), so split k plays the
     * simulator's subtask k: origin = vertex << 16 | k, seq = index - start of split k. Which reader
     * gets which split is up to Flink's enumerator; the records of each split are the same.
     */
    public static final class Datagen implements GeneratorFunction<Long, Tuple2<Integer, byte[]>> {
        private final long seed;
        private final int vertex;
        private final int parallelism;
        private final long count;
        private final long keys;
        private final long hotKeys;
        private final long hotPercent;
        private final int payloadBytes;
        private final Work work;

        /** hotPercent 0 means uniform keys. */
        public Datagen(long seed, int vertex, int parallelism, long count, int keys, int hotKeys,
                int hotPercent, int recordSize, Work work) {
            this.seed = seed;
            this.vertex = vertex;
            this.parallelism = parallelism;
            this.count = count;
            this.keys = Math.max(1, keys);
            this.hotKeys = Math.min(Math.max(1, hotKeys), this.keys);
            this.hotPercent = hotPercent;
            this.payloadBytes = recordSize - Records.BYTES_OVERHEAD;
            this.work = work;
        }

        @Override
        public void open(SourceReaderContext context) {
            work.open(context.getIndexOfSubtask());
        }

        @Override
        public Tuple2<Integer, byte[]> map(Long index) {
            work.record();
            long per = count / parallelism;
            long rem = count % parallelism;
            long split;
            long first;
            if (index < rem * (per + 1)) {
                split = index / (per + 1);
                first = split * (per + 1);
            } else {
                split = rem + (index - rem * (per + 1)) / per;
                first = split * per + rem;
            }
            // u32 in the simulator: keep it unsigned when widening.
            long origin = (((long) vertex << 16) | split) & 0xffffffffL;
            long seq = index - first;
            long r = Records.mix64(seed ^ (origin << 40) ^ seq);
            long key;
            if (hotPercent > 0 && Long.remainderUnsigned(r >>> 32, 100) < hotPercent) {
                key = Long.remainderUnsigned(r, hotKeys);
            } else {
                key = Long.remainderUnsigned(r, keys);
            }
            return Tuple2.of((int) key, Records.payload(payloadBytes, (int) origin, seq));
        }
    }

    /** map: a stateless one-to-one map. */
    public static final class PassMap<V> extends RichMapFunction<Tuple2<Integer, V>, Tuple2<Integer, V>> {
        private final Work work;

        public PassMap(Work work) {
            this.work = work;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        }

        @Override
        public Tuple2<Integer, V> map(Tuple2<Integer, V> record) {
            work.record();
            return record;
        }
    }

    /** filter: keeps keep-percent % of the records, decided by the simulator's hash. */
    public static final class Filter<V> extends RichFilterFunction<Tuple2<Integer, V>> {
        private final int keepPercent;
        private final Work work;

        public Filter(int keepPercent, Work work) {
            this.keepPercent = keepPercent;
            this.work = work;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        }

        @Override
        public boolean filter(Tuple2<Integer, V> record) {
            work.record();
            return Long.remainderUnsigned(Records.filterHash(record), 100) < keepPercent;
        }
    }

    /**
     * keyed-count: the seed job's KeyedProcessFunction with a ValueState&lt;Long&gt; "count" per
     * key, emitting (key, count). Its KeyedProcessOperator registers the "user-timers" timer
     * service, whose queue metadata is part of every snapshot (5.6 KB for the seed job, as seed
     * 000 measured), though no timer is ever set.
     */
    public static final class KeyedCount<V>
            extends KeyedProcessFunction<Integer, Tuple2<Integer, V>, Tuple2<Integer, Long>> {
        private final Work work;
        private final long ttlMillis;
        private transient ValueState<Long> count;

        public KeyedCount(Work work) {
            this(work, 0);
        }

        /** With state-ttl: StateTtlConfig.newBuilder(ttl) with Flink's defaults. */
        public KeyedCount(Work work, long ttlMillis) {
            this.work = work;
            this.ttlMillis = ttlMillis;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>("count", Types.LONG);
            if (ttlMillis > 0) {
                descriptor.enableTimeToLive(ttl(ttlMillis));
            }
            count = getRuntimeContext().getState(descriptor);
        }

        @Override
        public void processElement(
                Tuple2<Integer, V> record, Context context, Collector<Tuple2<Integer, Long>> out)
                throws Exception {
            work.record();
            Long current = count.value();
            long next = (current == null ? 0L : current) + 1;
            count.update(next);
            out.collect(Tuple2.of(record.f0, next));
        }
    }

    /** state-ttl: `StateTtlConfig.newBuilder(ttl).build()`, Flink's defaults for the rest. */
    static StateTtlConfig ttl(long ttlMillis) {
        return StateTtlConfig.newBuilder(Duration.ofMillis(ttlMillis)).build();
    }

    /**
     * keyed-count on the async state API (with state.backend.type: forst): the same count, read
     * and written through state futures, so ForSt serves it from its primary directory.
     */
    public static final class AsyncKeyedCount<V>
            extends KeyedProcessFunction<Integer, Tuple2<Integer, V>, Tuple2<Integer, Long>> {
        private final Work work;
        private final long ttlMillis;
        private transient org.apache.flink.api.common.state.v2.ValueState<Long> count;

        public AsyncKeyedCount(Work work) {
            this(work, 0);
        }

        public AsyncKeyedCount(Work work, long ttlMillis) {
            this.work = work;
            this.ttlMillis = ttlMillis;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            org.apache.flink.api.common.state.v2.ValueStateDescriptor<Long> descriptor =
                    new org.apache.flink.api.common.state.v2.ValueStateDescriptor<>("count", Types.LONG);
            if (ttlMillis > 0) {
                descriptor.enableTimeToLive(ttl(ttlMillis));
            }
            count = getRuntimeContext().getState(descriptor);
        }

        @Override
        public void processElement(
                Tuple2<Integer, V> record, Context context, Collector<Tuple2<Integer, Long>> out) {
            work.record();
            Integer key = record.f0;
            count.asyncValue().thenAccept(current -> {
                long next = (current == null ? 0L : current) + 1;
                count.asyncUpdate(next);
                out.collect(Tuple2.of(key, next));
            });
        }
    }

    /**
     * keyed-list: appends the record's value (Records.value) to its key's ListState<Long> "list"
     * and forwards the record.
     */
    public static final class KeyedList<V>
            extends KeyedProcessFunction<Integer, Tuple2<Integer, V>, Tuple2<Integer, V>> {
        private final Work work;
        private final long ttlMillis;
        private transient ListState<Long> list;

        public KeyedList(Work work, long ttlMillis) {
            this.work = work;
            this.ttlMillis = ttlMillis;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            ListStateDescriptor<Long> descriptor = new ListStateDescriptor<>("list", Types.LONG);
            if (ttlMillis > 0) {
                descriptor.enableTimeToLive(ttl(ttlMillis));
            }
            list = getRuntimeContext().getListState(descriptor);
        }

        @Override
        public void processElement(
                Tuple2<Integer, V> record, Context context, Collector<Tuple2<Integer, V>> out)
                throws Exception {
            work.record();
            list.add(Records.value(record));
            out.collect(record);
        }
    }

    /** keyed-list on the async state API (with state.backend.type: forst). */
    public static final class AsyncKeyedList<V>
            extends KeyedProcessFunction<Integer, Tuple2<Integer, V>, Tuple2<Integer, V>> {
        private final Work work;
        private final long ttlMillis;
        private transient org.apache.flink.api.common.state.v2.ListState<Long> list;

        public AsyncKeyedList(Work work, long ttlMillis) {
            this.work = work;
            this.ttlMillis = ttlMillis;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            org.apache.flink.api.common.state.v2.ListStateDescriptor<Long> descriptor =
                    new org.apache.flink.api.common.state.v2.ListStateDescriptor<>("list", Types.LONG);
            if (ttlMillis > 0) {
                descriptor.enableTimeToLive(ttl(ttlMillis));
            }
            list = getRuntimeContext().getListState(descriptor);
        }

        @Override
        public void processElement(
                Tuple2<Integer, V> record, Context context, Collector<Tuple2<Integer, V>> out) {
            work.record();
            list.asyncAdd(Records.value(record)).thenAccept(done -> out.collect(record));
        }
    }

    /**
     * keyed-window-sum, per record: adds the record's value to its window's sum (Flink keeps it in
     * the window operator's "window-contents" state). An AggregateFunction gets no runtime context,
     * so Work learns the subtask from WindowEmit.open() in the same task thread.
     */
    public static final class WindowAdd<V> implements AggregateFunction<Tuple2<Integer, V>, Long, Long> {
        private final Work work;

        public WindowAdd(Work work) {
            this.work = work;
        }

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Tuple2<Integer, V> record, Long sum) {
            work.record();
            return sum + Records.value(record);
        }

        @Override
        public Long getResult(Long sum) {
            return sum;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    /** keyed-window-sum, per fired window: emits (key, sum). */
    public static final class WindowEmit extends RichWindowFunction<Long, Tuple2<Integer, Long>, Integer, TimeWindow> {
        private final Work work;

        public WindowEmit(Work work) {
            this.work = work;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        }

        @Override
        public void apply(Integer key, TimeWindow window, Iterable<Long> sums,
                Collector<Tuple2<Integer, Long>> out) {
            for (Long sum : sums) {
                out.collect(Tuple2.of(key, sum));
            }
        }
    }

    /**
     * checkpoint-aware-map: passes records through; a CheckpointedFunction and CheckpointListener
     * (where a two-phase-commit function would commit) that registers no operator state, as the
     * simulator's operator holds none: the seed job's checkpoint is 5.6 KB with it.
     */
    public static final class CheckpointAwareMap<V> extends RichMapFunction<Tuple2<Integer, V>, Tuple2<Integer, V>>
            implements CheckpointedFunction, CheckpointListener {
        private final Work work;
        private transient long lastNotified;

        public CheckpointAwareMap(Work work) {
            this.work = work;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            lastNotified = Math.max(lastNotified, checkpointId);
        }

        @Override
        public Tuple2<Integer, V> map(Tuple2<Integer, V> record) {
            work.record();
            return record;
        }
    }

    /**
     * union: a two-input operator (TwoInputStreamTask), as the simulator's union task. Inputs of
     * different types leave as BYTES (see Records.asBytes).
     */
    public static final class Union<A, B, R>
            extends RichCoMapFunction<Tuple2<Integer, A>, Tuple2<Integer, B>, Tuple2<Integer, R>> {
        private final boolean toBytes;
        private final Work work;

        public Union(boolean toBytes, Work work) {
            this.toBytes = toBytes;
            this.work = work;
        }

        @Override
        public void open(OpenContext context) {
            work.open(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
        }

        @SuppressWarnings("unchecked")
        private Tuple2<Integer, R> pass(Tuple2<Integer, ?> record) {
            work.record();
            return (Tuple2<Integer, R>) (Tuple2<Integer, ?>) (toBytes ? Records.asBytes(record) : record);
        }

        @Override
        public Tuple2<Integer, R> map1(Tuple2<Integer, A> record) {
            return pass(record);
        }

        @Override
        public Tuple2<Integer, R> map2(Tuple2<Integer, B> record) {
            return pass(record);
        }
    }
}
