// The testkit's msw handlers, typechecked with the DOM lib added: msw's own
// .d.ts need it (BodyInit, MessageEvent…; R10.2, the testkit README says so).
import { setupServer } from 'msw/node';
import { createMockUpstream, scenario } from '@turnguard/testkit';

const upstream = createMockUpstream();
upstream.chat.enqueue(scenario.chat().text('Hello').usage({ input: 3, output: 1 }));
export const server = setupServer(...upstream.handlers('https://api.test/v1'));
