package binzip.devmongo;

import java.io.File;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Local MongoDB-wire-protocol server for development and tests (mongo-java-server 1.47).
 *
 * <pre>
 * java -jar dev-mongo.jar --host 127.0.0.1 --port 0 --backend memory|h2 [--file path.mv.db] [--watch-stdin] [--workers 1]
 * </pre>
 *
 * Prints exactly one line {@code READY mongodb://host:port} to stdout once listening. Shuts down
 * cleanly on SIGTERM/SIGINT (for h2 the MVStore is committed and closed). With {@code --watch-stdin}
 * the process also exits when stdin reaches EOF, i.e. when the parent process that holds the
 * pipe dies (even by SIGKILL). {@code --workers} sets the number of netty worker threads (default 1,
 * every command in turn); with more, commands that only read run side by side on them and every other command
 * runs alone (see {@link ConcurrentReads}). Logging goes to stderr, warnings and above only.
 */
public final class DevMongo {

    /**
     * One worker thread: every command in turn. More threads run reads side by side ({@link ConcurrentReads}):
     * more throughput when the store is the busiest part, but each command then wakes a thread of its own, which
     * cost the site's steady load more than the reads gained (docs/dev-mongo.md, docs/benchmarks.md).
     */
    private static final int DEFAULT_WORKERS = 1;

    private DevMongo() {
    }

    public static void main(String[] args) {
        // Must be set before the first slf4j logger is created.
        setDefault("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        setDefault("org.slf4j.simpleLogger.logFile", "System.err");
        setDefault("org.slf4j.simpleLogger.showDateTime", "true");
        setDefault("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        // Logs every client that disconnects abruptly ("Connection reset") at ERROR with a stack
        // trace; command errors are still returned to the client, so silence it.
        setDefault("org.slf4j.simpleLogger.log.de.bwaldvogel.mongo.wire.MongoExceptionHandler", "off");
        // Every non-unique index the services declare is reported as "not yet implemented" at WARN: known
        // (docs/dev-mongo.md), and noise in `npm start` output.
        setDefault("org.slf4j.simpleLogger.log.de.bwaldvogel.mongo.backend.AbstractMongoDatabase", "error");

        String host = "127.0.0.1";
        int port = 0;
        String backendName = "memory";
        String file = null;
        boolean watchStdin = false;
        int workers = DEFAULT_WORKERS;

        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--host" -> host = value(args, ++i, a);
                    case "--port" -> port = Integer.parseInt(value(args, ++i, a));
                    case "--backend" -> backendName = value(args, ++i, a);
                    case "--file" -> file = value(args, ++i, a);
                    case "--watch-stdin" -> watchStdin = true;
                    case "--workers" -> workers = Integer.parseInt(value(args, ++i, a));
                    case "-h", "--help" -> {
                        usage(System.out);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown argument: " + a);
                }
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("--port must be 0..65535");
            }
            if (workers < 1) {
                throw new IllegalArgumentException("--workers must be >= 1");
            }
            if (!backendName.equals("memory") && !backendName.equals("h2")) {
                throw new IllegalArgumentException("--backend must be memory or h2");
            }
            if (backendName.equals("h2") && (file == null || file.isBlank())) {
                throw new IllegalArgumentException("--backend h2 requires --file <path>");
            }
        } catch (RuntimeException e) {
            System.err.println("dev-mongo: " + e.getMessage());
            usage(System.err);
            System.exit(2);
            return;
        }

        final de.bwaldvogel.mongo.MongoBackend backend;
        try {
            if (backendName.equals("h2")) {
                File f = new File(file).getAbsoluteFile();
                File dir = f.getParentFile();
                if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
                    throw new IllegalStateException("cannot create directory " + dir);
                }
                backend = new de.bwaldvogel.mongo.backend.h2.H2Backend(f.getPath());
            } else {
                backend = new de.bwaldvogel.mongo.backend.memory.MemoryBackend();
            }
        } catch (RuntimeException e) {
            System.err.println("dev-mongo: failed to open backend " + backendName + ": " + e);
            System.exit(1);
            return;
        }

        // With one worker every command already runs alone: no lock, no copies.
        final de.bwaldvogel.mongo.MongoServer server =
            new de.bwaldvogel.mongo.MongoServer(workers == 1 ? backend : ConcurrentReads.around(backend));
        final InetSocketAddress address;
        try {
            // Writes still run one at a time whatever the number of workers (ConcurrentReads):
            // mongo-java-server's findAndModify/upsert are not atomic across threads.
            server.bind(new InetSocketAddress(host, port), 1, workers);
            address = server.getLocalAddress();
        } catch (RuntimeException e) {
            System.err.println("dev-mongo: failed to listen on " + host + ":" + port + ": " + e);
            try {
                backend.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
            System.exit(1);
            return;
        }

        final CountDownLatch stopped = new CountDownLatch(1);
        final AtomicBoolean stopping = new AtomicBoolean(false);
        final Runnable stop = () -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            try {
                // Closes open client connections, the event loops and finally the backend
                // (H2Backend.close() commits and closes the MVStore file).
                server.shutdownNow();
            } catch (Throwable t) {
                System.err.println("dev-mongo: error during shutdown: " + t);
                try {
                    backend.close();
                } catch (Throwable ignored) {
                    // best effort
                }
            } finally {
                stopped.countDown();
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "dev-mongo-shutdown"));

        if (watchStdin) {
            Thread watcher = new Thread(() -> {
                try {
                    InputStream in = System.in;
                    byte[] buf = new byte[256];
                    while (in.read(buf) >= 0) {
                        // discard; we only care about EOF
                    }
                } catch (Exception ignored) {
                    // treat errors like EOF
                }
                System.exit(0); // runs the shutdown hook
            }, "dev-mongo-stdin-watch");
            watcher.setDaemon(true);
            watcher.start();
        }

        String uriHost = address.getHostString();
        if (uriHost.contains(":")) {
            uriHost = "[" + uriHost + "]";
        }
        System.out.println("READY mongodb://" + uriHost + ":" + address.getPort());
        System.out.flush();

        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " requires a value");
        }
        return args[i];
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static void usage(PrintStream out) {
        out.println("usage: java -jar dev-mongo.jar [--host 127.0.0.1] [--port 0] [--backend memory|h2]"
                + " [--file <path.mv.db>] [--watch-stdin] [--workers 1]");
    }
}
