package barrierlab;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** The scenario's sinks, all Sink V2. */
public final class Sinks {
    private Sinks() {}

    /**
     * discard-sink with a cost or a fault (without either the job uses Flink's own DiscardingSink):
     * drops every record.
     */
    public static final class Discard<T> implements Sink<T> {
        private final Work work;

        public Discard(Work work) {
            this.work = work;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            work.open(context.getTaskInfo().getIndexOfThisSubtask());
            return new SinkWriter<T>() {
                @Override
                public void write(T element, Context ctx) {
                    work.record();
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /** collect-sink: keeps the last records it saw in memory, for a debugger; prints nothing. */
    public static final class Collect<T> implements Sink<T> {
        static final int KEEP = 100;
        private final Work work;

        public Collect(Work work) {
            this.work = work;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            work.open(context.getTaskInfo().getIndexOfThisSubtask());
            ArrayDeque<T> last = new ArrayDeque<>(KEEP);
            return new SinkWriter<T>() {
                @Override
                public void write(T element, Context ctx) {
                    work.record();
                    if (last.size() == KEEP) {
                        last.removeFirst();
                    }
                    last.addLast(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /**
     * A pre-committed transaction: a handle (subtask, attempt, number) and the records it holds;
     * the records themselves stay in the external system, as in the simulator.
     */
    public static final class Txn {
        final int subtask;
        final int attempt;
        final long number;
        final long records;

        Txn(int subtask, int attempt, long number, long records) {
            this.subtask = subtask;
            this.attempt = attempt;
            this.number = number;
            this.records = records;
        }

        String id() {
            return subtask + "-" + attempt + "-" + number;
        }
    }

    /** Committables travel in checkpoints and between writer and committer: 24 bytes. */
    public static final class TxnSerializer implements SimpleVersionedSerializer<Txn> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Txn t) {
            return ByteBuffer.allocate(24).putInt(t.subtask).putInt(t.attempt)
                    .putLong(t.number).putLong(t.records).array();
        }

        @Override
        public Txn deserialize(int version, byte[] bytes) throws IOException {
            if (version != 1 || bytes.length != 24) {
                throw new IOException("unknown committable version " + version);
            }
            ByteBuffer b = ByteBuffer.wrap(bytes);
            return new Txn(b.getInt(), b.getInt(), b.getLong(), b.getLong());
        }
    }

    /** The external system: commits are idempotent (a restore may commit a committable again). */
    static final class External {
        static final Set<String> COMMITTED = ConcurrentHashMap.newKeySet();
        static final AtomicLong COMMITTED_RECORDS = new AtomicLong();

        static void commit(Txn t) {
            if (COMMITTED.add(t.id())) {
                COMMITTED_RECORDS.addAndGet(t.records);
            }
        }
    }

    /**
     * two-phase-commit-sink: the writer buffers records into the open transaction;
     * prepareCommit (prepareSnapshotPreBarrier) pre-commits it as this checkpoint's committable;
     * the committer commits on notifyCheckpointComplete.
     */
    public static final class TwoPhaseCommit<T> implements Sink<T>, SupportsCommitter<Txn> {
        private final Work work;

        public TwoPhaseCommit(Work work) {
            this.work = work;
        }

        @Override
        public CommittingSinkWriter<T, Txn> createWriter(WriterInitContext context) {
            int subtask = context.getTaskInfo().getIndexOfThisSubtask();
            int attempt = context.getTaskInfo().getAttemptNumber();
            work.open(subtask);
            return new CommittingSinkWriter<T, Txn>() {
                private long number;
                private long open;

                @Override
                public void write(T element, Context ctx) {
                    work.record();
                    open++;
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public Collection<Txn> prepareCommit() {
                    // Every checkpoint pre-commits a transaction, empty or not, as the simulator.
                    Txn txn = new Txn(subtask, attempt, number++, open);
                    open = 0;
                    return Collections.singletonList(txn);
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public Committer<Txn> createCommitter(CommitterInitContext context) {
            return new Committer<Txn>() {
                @Override
                public void commit(Collection<CommitRequest<Txn>> requests) {
                    for (CommitRequest<Txn> request : requests) {
                        External.commit(request.getCommittable());
                    }
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public SimpleVersionedSerializer<Txn> getCommittableSerializer() {
            return new TxnSerializer();
        }
    }
}
