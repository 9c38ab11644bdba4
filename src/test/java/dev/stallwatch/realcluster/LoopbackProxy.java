package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A TCP proxy on loopback between the operator and the API server (TLS passes through untouched),
 * with the faults a network throws: {@link #drop} closes every connection and refuses new ones,
 * {@link #hang} keeps them open but moves no byte, {@link #latency} delays what the server sends
 * back (each answer and watch event arrives that much later), {@link #restore} passes all again.
 */
final class LoopbackProxy implements AutoCloseable {
  private enum Mode {
    PASS,
    DROP,
    HANG
  }

  private final ServerSocket server;
  private final int targetPort;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile Mode mode = Mode.PASS;
  private volatile long latencyNanos;
  private volatile boolean closed;
  private final java.util.concurrent.atomic.AtomicLong heldToServer =
      new java.util.concurrent.atomic.AtomicLong();

  LoopbackProxy(int targetPort) {
    this.targetPort = targetPort;
    try {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    daemon("proxy-accept", this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  /** Closes every connection; new ones are accepted and closed at once, until restored. */
  void drop() {
    mode = Mode.DROP;
    for (Socket s : sockets) {
      quietlyClose(s);
    }
  }

  /** Keeps every connection open and moves no byte either way, until restored. */
  void hang() {
    mode = Mode.HANG;
  }

  /** Delays every byte the API server sends back by {@code d}. */
  void latency(Duration d) {
    latencyNanos = d.toNanos();
  }

  /**
   * Bytes a client sent that a {@link #hang} held and that reached the API server only once
   * restored: requests sent before the hang's end, delivered after it (also from a client that has
   * exited meanwhile).
   */
  long heldBytesDeliveredToServer() {
    return heldToServer.get();
  }

  void restore() {
    latencyNanos = 0;
    mode = Mode.PASS;
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (mode == Mode.DROP) {
        quietlyClose(client);
        continue;
      }
      try {
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(upstream);
        pipe(client, upstream, false, true);
        pipe(upstream, client, true, false);
      } catch (IOException e) {
        quietlyClose(client);
      }
    }
  }

  private record Chunk(long due, byte[] bytes, boolean readInHang) {}

  /** Reads {@code from} into a queue; a writer sends each chunk to {@code to} when it is due. */
  private void pipe(Socket from, Socket to, boolean delayed, boolean toServer) {
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    daemon(
        "proxy-read",
        () -> {
          byte[] buf = new byte[16384];
          try (InputStream in = from.getInputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
              long due = System.nanoTime() + (delayed ? latencyNanos : 0);
              queue.put(new Chunk(due, Arrays.copyOf(buf, n), mode == Mode.HANG));
            }
          } catch (IOException | InterruptedException e) {
            // closed: the writer ends the other side
          }
          queue.add(new Chunk(0, null, false));
        });
    daemon(
        "proxy-write",
        () -> {
          try (OutputStream out = to.getOutputStream()) {
            while (true) {
              Chunk c = queue.take();
              if (c.bytes() == null) {
                break;
              }
              long wait;
              while ((wait = c.due() - System.nanoTime()) > 0) {
                Thread.sleep(Math.max(1, wait / 1_000_000));
              }
              boolean held = c.readInHang();
              while (mode == Mode.HANG && !to.isClosed()) {
                held = true;
                Thread.sleep(50);
              }
              out.write(c.bytes());
              if (held && toServer) {
                heldToServer.addAndGet(c.bytes().length);
              }
              out.flush();
            }
          } catch (IOException | InterruptedException e) {
            // the other side is gone
          }
          quietlyClose(from);
          quietlyClose(to);
          sockets.remove(from);
          sockets.remove(to);
        });
  }

  /** Runs {@code r} on a daemon thread (the proxies' pumps). */
  static void daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  static void quietlyClose(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // already closed
    }
    for (Socket s : sockets) {
      quietlyClose(s);
    }
  }
}
