// What V8's young generation did in a window: the
// number of scavenges and full GCs, the bytes that survived the scavenges
// (copied within new space) and were promoted to old space, and the new
// space's committed size at each GC. V8 doubles the young generation once the
// bytes surviving scavenges since its last growth exceed its capacity
// (heap.cc, CheckNewSpaceExpansionCriteria), so these figures say why a proxy's
// RSS per stream moved: whether its young generation doubled in the window.
import { GCProfiler } from 'node:v8';

const MiB = 1024 * 1024;
let profiler;

export function startGcSurvival() {
  profiler?.stop();
  profiler = new GCProfiler();
  profiler.start();
}

/** The window's summary since startGcSurvival(); undefined when it was not started. */
export function stopGcSurvival() {
  if (profiler === undefined) return undefined;
  const { statistics } = profiler.stop();
  profiler = undefined;
  const space = (stats, name) => stats.heapSpaceStatistics.find((entry) => entry.spaceName === name);
  const summary = { scavenges: 0, fullGcs: 0, survivedMiB: 0, promotedMiB: 0, newSpaceMiB: [] };
  for (const gc of statistics) {
    const newSpace = space(gc.afterGC, 'new_space');
    if (summary.newSpaceMiB.at(-1) !== newSpace.spaceSize / MiB) summary.newSpaceMiB.push(newSpace.spaceSize / MiB);
    if (gc.gcType !== 'Scavenge') {
      summary.fullGcs += 1;
      continue;
    }
    summary.scavenges += 1;
    summary.survivedMiB += newSpace.spaceUsedSize / MiB;
    summary.promotedMiB += Math.max(0, space(gc.afterGC, 'old_space').spaceUsedSize - space(gc.beforeGC, 'old_space').spaceUsedSize) / MiB;
  }
  return summary;
}
