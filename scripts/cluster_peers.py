"""The drill's peers (scripts/cluster.py): a forwarder to PostgreSQL that can be cut, and an
HTTPS reward-callback receiver that records what it was sent and when."""

import http.server as httpserver
import json
import os
import socket
import ssl
import subprocess
import threading
import time


class Forwarder:
    """A TCP forwarder to PostgreSQL that can be cut: every open connection is closed and
    new ones are refused until it is restored (the database, as the processes see it, is
    gone)."""

    def __init__(self, target_port=5432):
        self.target = ("127.0.0.1", target_port)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.cut = False
        self.open = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.sock.accept()
            if self.cut:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open.update([client, upstream])
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        with self.lock:
            self.open.discard(src)
            self.open.discard(dst)

    def set_cut(self, cut):
        self.cut = cut
        if cut:
            with self.lock:
                for s in list(self.open):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


class Receiver:
    """An HTTPS reward-callback receiver recording the event ids it was sent."""

    def __init__(self, workdir):
        # A throwaway CA (the servers trust it through APP_CALLBACK_CA_FILE) and a leaf
        # certificate for 127.0.0.1 signed by it.
        self.cert = os.path.join(workdir, "ca.pem")
        ca_key, key = os.path.join(workdir, "ca.key"), os.path.join(workdir, "receiver.key")
        leaf, csr = os.path.join(workdir, "receiver.pem"), os.path.join(workdir, "receiver.csr")
        ext = os.path.join(workdir, "receiver.ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        for cmd in (
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=drill-ca",
             "-addext", "basicConstraints=critical,CA:TRUE", "-keyout", ca_key, "-out", self.cert],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", csr],
            ["x509", "-req", "-in", csr, "-CA", self.cert, "-CAkey", ca_key, "-CAcreateserial",
             "-days", "2", "-extfile", ext, "-out", leaf],
        ):
            subprocess.run(["openssl", *cmd], check=True, capture_output=True)
        self.events = []
        lock = self.lock = threading.Lock()
        events = self.events

        class Hook(httpserver.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    event = json.loads(body)
                    with lock:
                        events.append((event.get("eventId"), event.get("transactionId"),
                                       event.get("eventType"), time.monotonic()))
                except ValueError:
                    pass
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_):
                pass

        self.server = httpserver.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(leaf, key)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def confirmed(self):
        with self.lock:
            return [e for e in self.events if e[2] == "reward.confirmed"]
