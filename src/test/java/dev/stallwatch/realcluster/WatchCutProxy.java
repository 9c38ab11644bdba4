package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A plain-HTTP front on loopback to the API server's TLS port, for a client's kubeconfig, that
 * reads the request line of every request passing through. Plain HTTP has no ALPN, so the client
 * speaks HTTP/1.1 and each watch (a WebSocket with fabric8's JDK client) is a connection of its
 * own: {@link #cutWatches} closes the connections watching in one namespace and answers that
 * namespace's next watch of each resource with an ERROR event of 410 Expired — what the API
 * server's watch cache answers when the resourceVersion is older than it holds — so that exactly
 * that namespace's informers relist, and no other's.
 */
final class WatchCutProxy implements AutoCloseable {
  private static final Pattern REQUEST =
      Pattern.compile("^(GET|POST|PUT|PATCH|DELETE) (/[^ ?]*)(\\?[^ ]*)? HTTP/1\\.1\r\n");
  private static final Pattern NAMESPACED = Pattern.compile("/namespaces/([^/]+)/([^/]+)$");
  private static final Pattern WEBSOCKET_KEY =
      Pattern.compile("(?im)^Sec-WebSocket-Key:([^\r\n]+)\r?$");

  private final ServerSocket server;
  private final SSLSocketFactory tls;
  private final URI target;
  private final Map<Socket, String> watching = new ConcurrentHashMap<>();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final Set<String> expired = ConcurrentHashMap.newKeySet();
  private volatile String expireIn;
  private volatile boolean closed;

  /** A front to {@code target} (https on loopback), trusting the CA in {@code caCertificate}. */
  WatchCutProxy(URI target, Path caCertificate) {
    this.target = target;
    try (InputStream ca = Files.newInputStream(caCertificate)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry(
          "cluster-ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      this.tls = context.getSocketFactory();
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust " + caCertificate, e);
    }
    LoopbackProxy.daemon("watch-cut-accept", this::accept);
  }

  /** {@code kubeconfig} with its server pointed at this front (plain HTTP, no CA). */
  Path kubeconfigThrough(Path kubeconfig, Path target) {
    try {
      String yaml =
          Files.readString(kubeconfig, StandardCharsets.UTF_8)
              .replace(
                  "server: " + this.target.toString().replaceAll("/$", ""),
                  "server: http://127.0.0.1:" + server.getLocalPort())
              .replaceAll("(?m)^\\s*certificate-authority: .*\n", "");
      if (!yaml.contains("http://127.0.0.1:" + server.getLocalPort())) {
        throw new IllegalStateException(kubeconfig + " does not name " + this.target);
      }
      Files.writeString(target, yaml, StandardCharsets.UTF_8);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Closes every watch in {@code namespace}; the next watch there of each resource is answered 410
   * Expired (once per resource), so its informers list again. Returns the watches closed.
   */
  int cutWatches(String namespace) {
    expired.clear();
    expireIn = namespace;
    int cut = 0;
    for (Map.Entry<Socket, String> w : watching.entrySet()) {
      if (namespace.equals(w.getValue().split(" ")[0])) {
        LoopbackProxy.quietlyClose(w.getKey());
        cut++;
      }
    }
    return cut;
  }

  /** The resources of the namespace last cut whose watch was answered 410 ({@code pods}, …). */
  Set<String> expiredResources() {
    return Set.copyOf(expired);
  }

  /** Every request line seen: method, path and query. */
  List<String> requests() {
    return List.copyOf(requests);
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      try {
        Socket upstream = tls.createSocket(target.getHost(), target.getPort());
        sockets.add(client);
        sockets.add(upstream);
        LoopbackProxy.daemon("watch-cut-up", () -> requests(client, upstream));
        LoopbackProxy.daemon("watch-cut-down", () -> pump(upstream, client));
      } catch (IOException e) {
        LoopbackProxy.quietlyClose(client);
      }
    }
  }

  /** Client to API server, looking at each request line; a watch to expire is answered here. */
  private void requests(Socket client, Socket upstream) {
    byte[] buf = new byte[16384];
    try (InputStream in = client.getInputStream();
        OutputStream out = upstream.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        Matcher m =
            REQUEST.matcher(new String(buf, 0, Math.min(n, 2048), StandardCharsets.ISO_8859_1));
        if (m.find()) {
          String query = m.group(3) == null ? "" : m.group(3);
          requests.add(m.group(1) + " " + m.group(2) + query);
          Matcher ns = NAMESPACED.matcher(m.group(2));
          boolean watch = "GET".equals(m.group(1)) && query.contains("watch=true");
          watching.remove(client);
          if (watch && ns.find()) {
            if (ns.group(1).equals(expireIn) && expired.add(ns.group(2))) {
              expire(client, new String(buf, 0, n, StandardCharsets.ISO_8859_1));
              return;
            }
            watching.put(client, ns.group(1) + " " + ns.group(2));
          }
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // closed: the other pump ends too
    } finally {
      end(client, upstream);
    }
  }

  /**
   * What the API server's watch cache answers a watch from a resourceVersion it no longer holds:
   * the watch accepted, then one ERROR event of status 410 Expired, then the end. fabric8 watches
   * over WebSocket (its JDK client), so the handshake is completed here, the event sent as one text
   * frame and the socket closed with a normal close frame; a plain HTTP watch gets a 200 stream.
   */
  private static void expire(Socket client, String request) throws IOException {
    byte[] event =
        ("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource"
                + " version\",\"reason\":\"Expired\",\"code\":410}}\n")
            .getBytes(StandardCharsets.UTF_8);
    OutputStream out = client.getOutputStream();
    Matcher key = WEBSOCKET_KEY.matcher(request);
    if (key.find()) {
      String accept;
      try {
        accept =
            java.util.Base64.getEncoder()
                .encodeToString(
                    java.security.MessageDigest.getInstance("SHA-1")
                        .digest(
                            (key.group(1).strip() + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                                .getBytes(StandardCharsets.ISO_8859_1)));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
      out.write(
          ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  + "Sec-WebSocket-Accept: "
                  + accept
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write(frame(0x81, event));
      out.write(frame(0x88, new byte[] {0x03, (byte) 0xE8})); // close: 1000, normal
    } else {
      out.write(
          ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                  + Integer.toHexString(event.length)
                  + "\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write(event);
      out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    }
    out.flush();
    // End with a FIN and let the client read it all: closing at once could reset the connection
    // before the event is read.
    client.shutdownOutput();
    client.setSoTimeout(5000);
    InputStream in = client.getInputStream();
    byte[] drain = new byte[4096];
    try {
      while (in.read(drain) >= 0) {
        // what the client still sends (its close frame) is not forwarded
      }
    } catch (java.net.SocketTimeoutException e) {
      // the client keeps it open: closed by the caller
    }
  }

  /** One unmasked WebSocket frame (a server's) with the FIN bit and {@code opcode}. */
  private static byte[] frame(int finAndOpcode, byte[] payload) {
    java.io.ByteArrayOutputStream f = new java.io.ByteArrayOutputStream();
    f.write(finAndOpcode);
    if (payload.length < 126) {
      f.write(payload.length);
    } else {
      f.write(126);
      f.write(payload.length >> 8);
      f.write(payload.length & 0xff);
    }
    f.writeBytes(payload);
    return f.toByteArray();
  }

  private void pump(Socket from, Socket to) {
    byte[] buf = new byte[16384];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // closed: the other pump ends too
    } finally {
      end(to, from);
    }
  }

  private void end(Socket client, Socket upstream) {
    watching.remove(client);
    LoopbackProxy.quietlyClose(client);
    LoopbackProxy.quietlyClose(upstream);
    sockets.remove(client);
    sockets.remove(upstream);
  }

  @Override
  public void close() {
    closed = true;
    quietlyCloseServer();
    for (Socket s : sockets) {
      LoopbackProxy.quietlyClose(s);
    }
  }

  private void quietlyCloseServer() {
    try {
      server.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
