package barrierlab;

import java.io.File;
import java.net.URI;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * Runs the exported scenario on a local MiniCluster whose REST API stays up for the whole run.
 *
 * <p>Usage: BarrierLabJob [--rest-port P] [--seconds N] [--conf-dir DIR]. Prints one line
 * "BARRIERLAB-JOB &lt;job id&gt; http://127.0.0.1:&lt;port&gt;" once the job is submitted, runs N
 * seconds (default: until killed), cancels the job, closes the cluster and exits 0.
 */
public final class BarrierLabJob {
    private BarrierLabJob() {}

    public static void main(String[] args) throws Exception {
        int restPort = 8081;
        long seconds = -1;
        String confDir = System.getProperty("barrierlab.home", ".");
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--rest-port":
                    restPort = (int) number(args[i], value);
                    i++;
                    break;
                case "--seconds":
                    seconds = number(args[i], value);
                    i++;
                    break;
                case "--conf-dir":
                    confDir = need(args[i], value);
                    i++;
                    break;
                default:
                    System.err.println("unknown argument '" + args[i]
                            + "'; usage: run.sh [--rest-port P] [--seconds N] [--conf-dir DIR]");
                    System.exit(2);
            }
        }

        Configuration conf = GlobalConfiguration.loadConfiguration(new File(confDir).getAbsolutePath());
        conf.set(RestOptions.PORT, restPort);
        conf.set(RestOptions.BIND_PORT, String.valueOf(restPort));
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        MiniClusterConfiguration clusterConf = new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(conf.get(TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS))
                .setNumSlotsPerTaskManager(conf.get(TaskManagerOptions.NUM_TASK_SLOTS))
                .build();

        MiniCluster cluster = new MiniCluster(clusterConf);
        cluster.start();
        JobID job = null;
        try {
            // The same configuration for the job, so the checkpointing keys apply to it.
            StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf);
            Topology.build(env, System.currentTimeMillis());
            StreamGraph streamGraph = env.getStreamGraph();
            streamGraph.setJobName(Topology.JOB_NAME);
            JobGraph jobGraph = streamGraph.getJobGraph();
            job = cluster.submitJob(jobGraph).get().getJobID();
            URI rest = cluster.getRestAddress().get();
            System.out.println("BARRIERLAB-JOB " + job + " http://127.0.0.1:" + rest.getPort());
            System.out.flush();

            if (seconds < 0) {
                Thread.currentThread().join(); // until killed
            }
            // The cluster (and its REST API) stays up even if a bounded job finished early.
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        } finally {
            if (job != null) {
                try {
                    cluster.cancelJob(job).get(30, TimeUnit.SECONDS);
                } catch (Exception finishedOrFailed) {
                    // A finished or failed job cannot be cancelled; nothing to do.
                }
            }
            cluster.closeAsync().get(60, TimeUnit.SECONDS);
        }
        System.exit(0);
    }

    private static long number(String flag, String value) {
        try {
            long n = Long.parseLong(need(flag, value));
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        System.err.println(flag + " needs a whole number >= 0, got '" + value + "'");
        System.exit(2);
        return -1;
    }

    private static String need(String flag, String value) {
        if (value == null) {
            System.err.println(flag + " needs a value");
            System.exit(2);
        }
        return value;
    }
}
