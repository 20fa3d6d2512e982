"""A TCP relay between an implementation and MySQL that counts the statements it sends.

The server's Com_select is server-wide: on a shared machine other clients add to it. For the apps
verify starts itself, their DB_PORT points here, and every client command packet (sequence number
0) is classified: COM_QUERY by its first word, COM_STMT_PREPARE and COM_STMT_EXECUTE as such. The
count is exact whatever else the server is doing. TLS to the database would hide the commands; the
relay notices the SSL request and reports the count as unknown."""
import socket
import threading
from collections import Counter

COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE = 0x03, 0x16, 0x17
CLIENT_SSL = 0x0800


class StatementCounter:
    def __init__(self, upstream_host: str, upstream_port: int):
        self.upstream = (upstream_host, upstream_port)
        self.counts = Counter()
        self.encrypted = False
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def snapshot(self) -> Counter:
        with self.lock:
            return Counter(self.counts)

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source, target, from_client: bool) -> None:
        buffer = b""
        try:
            while data := source.recv(65536):
                # Counted before it is forwarded: the answer, and so the app's response, cannot
                # reach verify before the statement that caused it is counted.
                if from_client:
                    buffer = self._parse(buffer + data)
                target.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, target):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def _parse(self, buffer: bytes) -> bytes:
        """Consume whole packets: 3-byte length, 1-byte sequence, payload."""
        while len(buffer) >= 4:
            length = int.from_bytes(buffer[:3], "little")
            if len(buffer) < 4 + length:
                break
            sequence, payload = buffer[3], buffer[4:4 + length]
            buffer = buffer[4 + length:]
            if sequence == 1 and length == 32 and int.from_bytes(payload[:4], "little") & CLIENT_SSL:
                self.encrypted = True
            if sequence != 0 or not payload:
                continue
            command = payload[0]
            if command == COM_QUERY:
                kind = payload[1:40].decode("latin-1").strip().split(" ", 1)[0].upper() or "?"
            elif command == COM_STMT_PREPARE:
                kind = "PREPARE"
            elif command == COM_STMT_EXECUTE:
                kind = "EXECUTE"
            else:
                continue   # ping, quit, init db, reset: not statements
            with self.lock:
                self.counts[kind] += 1
        return buffer
