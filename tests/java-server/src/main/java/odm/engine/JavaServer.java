// Runs mongo-java-server's in-memory backend on 127.0.0.1 until SIGTERM or SIGINT.
//
//   java -cp CLASSPATH odm.engine.JavaServer --port-file PATH [--port N]
//
// --port 0 (the default) lets the system pick a free port. Once the server listens,
// the port is written to PATH (a temporary file, then renamed, so a reader never sees
// half of it). The engine is used as it is; the only addition is a marker in
// buildInfo (`odmJavaServer: true`) so that the tests know which engine answers them,
// as the odm test server says `odmTestServer: true`.
package odm.engine;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;

public final class JavaServer {
  private JavaServer() {}

  /** The in-memory backend, with the marker in buildInfo. */
  static final class MarkedBackend extends MemoryBackend {
    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
      Document reply = super.handleCommand(channel, databaseName, command, query);
      if (command.equalsIgnoreCase("buildinfo")) reply.put("odmJavaServer", Boolean.TRUE);
      return reply;
    }
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    Path portFile = null;
    int port = 0;
    for (int i = 0; i < args.length; ++i) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      if (args[i].equals("--port-file") && value != null) {
        portFile = Path.of(value);
        ++i;
      } else if (args[i].equals("--port") && value != null) {
        port = Integer.parseInt(value);
        ++i;
      } else {
        System.err.println("usage: JavaServer --port-file PATH [--port N]; unexpected argument: " + args[i]);
        System.exit(2);
      }
    }
    if (portFile == null) {
      System.err.println("usage: JavaServer --port-file PATH [--port N]");
      System.exit(2);
    }

    MongoServer server = new MongoServer(new MarkedBackend());
    server.bind(new InetSocketAddress("127.0.0.1", port));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdownNow();
      stopped.countDown();
    }));

    int bound = server.getLocalAddress().getPort();
    Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
    Files.writeString(tmp, bound + "\n", StandardCharsets.US_ASCII);
    Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    System.out.println("mongo-java-server listening on 127.0.0.1:" + bound);
    stopped.await();
  }
}
