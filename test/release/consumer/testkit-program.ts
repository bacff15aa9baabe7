// The testkit and the two apps' library entries, typechecked with the DOM lib
// added: msw's own .d.ts need it (BodyInit, MessageEvent…), and the apps'
// types reach msw through the testkit (R10.2; the READMEs say so).
import { setupServer } from 'msw/node';
import { createMockUpstream, scenario } from '@turnguard/testkit';
import { createGateway } from '@turnguard/gateway';
import { runProbe } from '@turnguard/probe';

const upstream = createMockUpstream();
upstream.chat.enqueue(scenario.chat().text('Hello').usage({ input: 3, output: 1 }));
export const server = setupServer(...upstream.handlers('https://api.test/v1'));
export { createGateway, runProbe };
