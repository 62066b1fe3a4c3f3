"""Where scripts/generation.py's tasks run: this machine's cores (a thread pool, --jobs at
a time) or a Dask cluster (`--cluster`), behind one concurrent.futures interface.

  (no --cluster)        a thread pool of --jobs threads on this machine
  --cluster local:N     a Dask cluster of N one-thread workers started here, on 127.0.0.1
  --cluster tcp://H:P   a running scheduler on this machine (H must be a loopback address)
  --cluster tls://H:P   a running scheduler anywhere, over TLS (--tls-ca, --tls-cert,
                        --tls-key: the certificates of the cluster, docs/distributed.md)

A worker killed mid-task makes the scheduler run the task again on another worker; the
tasks' module (scripts/worker_tasks.py) is uploaded to the scheduler and the workers, so
they need Python with `distributed` and nothing of this repository.
"""

import concurrent.futures
import ipaddress
import urllib.parse

import worker_tasks


class ClusterError(Exception):
    """A cluster that cannot be used, with the reason."""


def is_loopback(host):
    """Whether a host name or address is this machine's loopback."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Pool:
    """Runs tasks: submit() gives concurrent.futures futures, share() makes a large value
    (a binary, a net) travel once instead of with every task."""

    def __init__(self, executor, client=None, cluster=None, threads=None):
        self.executor, self.client, self.cluster = executor, client, cluster
        self.threads = threads

    def submit(self, fn, *args):
        """Starts fn(*args) on a worker; returns its future."""
        return self.executor.submit(fn, *args)

    def share(self, value):
        """The value as tasks should receive it: itself here, scattered on a cluster."""
        if self.client is None:
            return value
        return self.client.scatter(value, broadcast=True, hash=True)

    def describe(self):
        """Where the tasks run, for the log."""
        if self.client is None:
            return f"{self.threads} local threads"
        workers = self.client.scheduler_info(n_workers=-1)["workers"]
        return f"Dask cluster {self.client.scheduler.address}, {len(workers)} workers"

    def close(self):
        """Stops the local pool or leaves the cluster (a started local cluster stops)."""
        if self.client is None:
            self.executor.shutdown(wait=False, cancel_futures=True)
        else:
            self.executor.shutdown(wait=False)
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def security(tls):
    """Dask's Security from (ca, cert, key) files, or None without them."""
    if not any(tls):
        return None
    if not all(tls):
        raise ClusterError("TLS needs --tls-ca, --tls-cert and --tls-key together")
    from distributed.security import Security
    ca, cert, key = tls
    return Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key,
                    require_encryption=True)


def open_pool(address, jobs, tls=(None, None, None)):
    """The pool for --cluster ADDRESS (None: --jobs local threads); raises ClusterError."""
    if address is None:
        return Pool(concurrent.futures.ThreadPoolExecutor(max_workers=jobs), threads=jobs)
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise ClusterError(f"--cluster needs Dask's distributed (pip install distributed): {e}")
    sec = security(tls)
    cluster = None
    if address.startswith("local:"):
        count = address[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {address}: local:N needs a number of workers")
        cluster = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None,
                               protocol="tls://" if sec else "tcp://", security=sec)
        address = cluster.scheduler_address
    else:
        url = urllib.parse.urlsplit(address)
        if url.scheme not in ("tcp", "tls") or not url.hostname:
            raise ClusterError(f"--cluster {address}: give local:N, tcp://HOST:PORT or "
                               "tls://HOST:PORT")
        if url.scheme == "tcp" and not is_loopback(url.hostname):
            raise ClusterError(f"--cluster {address}: plain tcp:// only on this machine's "
                               "loopback; across machines use tls:// with --tls-ca, "
                               "--tls-cert and --tls-key")
        if url.scheme == "tls" and sec is None:
            raise ClusterError(f"--cluster {address}: tls:// needs --tls-ca, --tls-cert "
                               "and --tls-key")
    try:
        client = Client(address, security=sec, timeout="30s")
    except (OSError, TimeoutError) as e:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"--cluster {address}: cannot reach the scheduler: {e}")
    # The tasks' module goes to the scheduler and every worker, also those joining later.
    client.upload_file(worker_tasks.__file__)
    return Pool(client.get_executor(pure=False), client, cluster)
