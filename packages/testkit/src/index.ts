// Everything of the msw-free entry, plus the msw handlers (msw is a peer of these only, R10.3).
export * from './server.js';
export { createMockUpstream, type MockUpstream } from './upstream/mock-upstream.js';
export { releaseMockedResponseClones } from './upstream/release-clones.js';
