#!/usr/bin/env python3
"""A fake cloud metadata service on 127.0.0.1 for probe_cli_test.sh (never the real 169.254.169.254).

Usage: fake_metadata.py gcp|silent PORT_FILE [CONNECTION_LOG]
  gcp     answers like GCP's metadata server (machine type a3-highgpu-8g, zone us-central1-a)
  silent  accepts connections and never answers (the probe must time out); appends a line to
          CONNECTION_LOG for each connection it accepts
Writes the chosen port to PORT_FILE, then serves until killed.
"""
import http.server
import socket
import sys
import time

mode, port_file = sys.argv[1], sys.argv[2]
connection_log = sys.argv[3] if len(sys.argv) > 3 else None


class Gcp(http.server.BaseHTTPRequestHandler):
    def _send(self, status, body=b"", flavor=False):
        self.send_response(status)
        if flavor:
            self.send_header("Metadata-Flavor", "Google")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self):
        self._send(404)

    def do_GET(self):
        if self.headers.get("Metadata-Flavor") != "Google":
            return self._send(404)
        answers = {"/computeMetadata/v1/instance/machine-type": b"projects/1/machineTypes/a3-highgpu-8g",
                   "/computeMetadata/v1/instance/zone": b"projects/1/zones/us-central1-a"}
        if self.path in answers:
            return self._send(200, answers[self.path], flavor=True)
        self._send(404)

    def log_message(self, *args):
        pass


if mode == "gcp":
    server = http.server.HTTPServer(("127.0.0.1", 0), Gcp)
    open(port_file, "w").write(str(server.server_address[1]))
    server.serve_forever()
else:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    if connection_log:
        open(connection_log, "w").close()
    open(port_file, "w").write(str(s.getsockname()[1]))
    held = []
    while True:
        conn, _ = s.accept()
        held.append(conn)  # keep it open, never answer
        if connection_log:
            with open(connection_log, "a") as log:
                log.write("connection\n")
