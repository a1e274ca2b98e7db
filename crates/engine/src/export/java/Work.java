package barrierlab;

import java.io.Serializable;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * What an operator does besides its function, per record: the scenario's explicit cost-per-record
 * (with slow faults changing it from a given time on) and kill faults. Times count from the job's
 * submission (`start`, epoch milliseconds).
 */
public final class Work implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * Kill faults already fired. A fault fires once per job, also after the restore it causes: the
     * job runs in one MiniCluster JVM, so a static set survives task restarts. (The attempt number
     * would not do: every failover raises it, so a second kill would never see attempt 0.)
     */
    private static final Set<String> FIRED = ConcurrentHashMap.newKeySet();

    /**
     * The subtask index of the task thread, for functions that get no runtime context (a window's
     * AggregateFunction): set by open() of any function in the same chain.
     */
    private static final ThreadLocal<Integer> THREAD_SUBTASK = new ThreadLocal<>();

    /** Parked time below this is carried to the next record rather than parked for. */
    private static final long MIN_PARK_NANOS = 50_000L;
    /** At most this much of a park's overshoot is credited to the next record. */
    private static final long MAX_CREDIT_NANOS = 200_000L;

    private final String operator;
    private final long start;
    private long costNanos;
    private long[] slowFromMillis = new long[0];
    private long[] slowCostNanos = new long[0];
    private int[] killSubtask = new int[0];
    private long[] killAtMillis = new long[0];

    private transient int subtask = -1;
    private transient long due;

    private Work(String operator, long start) {
        this.operator = operator;
        this.start = start;
    }

    public static Work of(String operator, long start) {
        return new Work(operator, start);
    }

    /** The operator's cost-per-record from the start. */
    public Work cost(long nanos) {
        costNanos = nanos;
        return this;
    }

    /** A slow fault: from `fromMillis` on, each record costs `nanos`. Add in time order. */
    public Work slow(long fromMillis, long nanos) {
        slowFromMillis = append(slowFromMillis, fromMillis);
        slowCostNanos = append(slowCostNanos, nanos);
        return this;
    }

    /** A kill fault: subtask `index` throws at its first record at or after `atMillis`. */
    public Work kill(int index, long atMillis) {
        int[] s = new int[killSubtask.length + 1];
        System.arraycopy(killSubtask, 0, s, 0, killSubtask.length);
        s[killSubtask.length] = index;
        killSubtask = s;
        killAtMillis = append(killAtMillis, atMillis);
        return this;
    }

    private static long[] append(long[] a, long v) {
        long[] b = new long[a.length + 1];
        System.arraycopy(a, 0, b, 0, a.length);
        b[a.length] = v;
        return b;
    }

    /** Binds this instance to its subtask; call from the function's open(). */
    public void open(int index) {
        subtask = index;
        THREAD_SUBTASK.set(index);
    }

    private boolean idle() {
        return costNanos == 0 && slowFromMillis.length == 0 && killSubtask.length == 0;
    }

    /** Called once per record, before the function's own work. */
    public void record() {
        if (idle()) {
            return;
        }
        long elapsed = System.currentTimeMillis() - start;
        if (killSubtask.length > 0) {
            int index = subtask >= 0 ? subtask : THREAD_SUBTASK.get() == null ? -1 : THREAD_SUBTASK.get();
            for (int i = 0; i < killSubtask.length; i++) {
                if (killSubtask[i] == index && elapsed >= killAtMillis[i]
                        && FIRED.add(operator + "#" + index + "@" + killAtMillis[i])) {
                    throw new RuntimeException("barrierlab kill fault: " + operator + "#" + index
                            + " at " + killAtMillis[i] + " ms (" + elapsed + " ms after submission)");
                }
            }
        }
        long cost = costNanos;
        for (int i = 0; i < slowFromMillis.length; i++) {
            if (elapsed >= slowFromMillis[i]) {
                cost = slowCostNanos[i];
            }
        }
        if (cost > 0) {
            pay(cost);
        }
    }

    /**
     * Parks until this record's deadline instead of spinning (machines with few cores): deadlines
     * add up, so costs below the park granularity still cap the rate at one record per cost.
     */
    private void pay(long cost) {
        long now = System.nanoTime();
        // A park overshoots by tens of microseconds: credit that to the next record when it
        // follows at once, but never idle time (a record after a pause pays its full cost).
        boolean follows = now >= due && now - due <= MAX_CREDIT_NANOS;
        due = (follows ? due : Math.max(due, now)) + cost;
        long wait;
        while ((wait = due - System.nanoTime()) > MIN_PARK_NANOS) {
            if (Thread.currentThread().isInterrupted()) {
                return; // cancelled: let the task stop
            }
            LockSupport.parkNanos(wait);
        }
    }
}
