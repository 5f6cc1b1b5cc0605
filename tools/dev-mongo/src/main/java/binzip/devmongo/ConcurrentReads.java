package binzip.devmongo;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.MongoMessage;

/**
 * A backend whose reads run side by side and whose writes run alone.
 *
 * <p>With one worker thread (the default) every command waits for the one before it, so a lookup of one document
 * by id queues behind any scan (a list page, a count) another client sent first. Several worker threads alone are
 * not safe:
 * mongo-java-server's upserts and {@code findAndModify} are not atomic across threads (parallel {@code $inc}
 * upserts returned duplicate counter values). So every command that may change anything holds the write lock and
 * runs alone, as before; the commands that only read share the read lock.
 *
 * <p>Answers are copied before the lock is released: the memory backend answers a find without a projection with
 * its stored documents and changes them in place on update (AbstractMongoCollection.updateDocument), and the
 * answer is encoded after this call returns, when a write may already be running. (No test has provoked that
 * race: the copy is there because the code allows it, a torn or half-iterated document on the wire.)
 */
final class ConcurrentReads implements InvocationHandler {

    /** Commands that change nothing (lower case). Anything else, known or not, runs alone. */
    private static final Set<String> READS = Set.of(
        "find", "getmore", "count", "distinct", "aggregate", "listcollections", "listindexes", "listdatabases",
        "hello", "ismaster", "ping", "buildinfo", "whatsmyuri", "getparameter", "dbstats", "collstats",
        "connectionstatus", "getlasterror");

    private final MongoBackend backend;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    private ConcurrentReads(MongoBackend backend) {
        this.backend = backend;
    }

    static MongoBackend around(MongoBackend backend) {
        return (MongoBackend) Proxy.newProxyInstance(MongoBackend.class.getClassLoader(),
            new Class<?>[] {MongoBackend.class}, new ConcurrentReads(backend));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return call(method, args);
        }
        Lock held = onlyReads(method, args) ? lock.readLock() : lock.writeLock();
        held.lock();
        try {
            Object answer = call(method, args);
            return answer instanceof Document document ? document.cloneDeeply() : answer;
        } finally {
            held.unlock();
        }
    }

    private Object call(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(backend, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static boolean onlyReads(Method method, Object[] args) {
        return switch (method.getName()) {
            case "handleMessage" -> {
                Document command = ((MongoMessage) args[0]).getDocument();
                yield readsOnly(command.keySet().iterator().next(), command);
            }
            case "handleCommand" -> readsOnly((String) args[2], (Document) args[3]);
            default -> false;
        };
    }

    static boolean readsOnly(String command, Document body) {
        String name = command.toLowerCase(Locale.ROOT);
        if (!READS.contains(name)) {
            return false;
        }
        // An aggregation that ends in $out or $merge writes its result.
        if (name.equals("aggregate") && body.get("pipeline") instanceof List<?> stages) {
            for (Object stage : stages) {
                if (stage instanceof Document d && (d.containsKey("$out") || d.containsKey("$merge"))) {
                    return false;
                }
            }
        }
        return true;
    }
}
