// Types for proxy-addr (Fastify's own dependency, which it uses for `trustProxy`): the parts used here.
declare module "proxy-addr" {
  import type { IncomingMessage } from "node:http";

  type Trust = (addr: string, hop: number) => boolean;
  function proxyaddr(req: IncomingMessage, trust: Trust): string;
  namespace proxyaddr {
    function all(req: IncomingMessage, trust?: Trust): string[];
    function compile(val: string | string[]): Trust;
  }
  export default proxyaddr;
}
