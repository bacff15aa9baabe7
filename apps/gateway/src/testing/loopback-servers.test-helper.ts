import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Loopback servers a test starts (upstreams, proxies), all closed together in `afterEach`. */
export class LoopbackServers {
  #servers: Server[] = [];

  /** Listens on 127.0.0.1 on a free port; resolves with the port. */
  async listen(server: Server): Promise<number> {
    this.#servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  /** Drops every open connection, then waits for each server to close. */
  async closeAll(): Promise<void> {
    const servers = this.#servers;
    this.#servers = [];
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
