export declare const PUBLISHED_DIRS: readonly string[];
/** Builds and packs every published package of `repo` into `dest`; returns the tarballs' absolute paths. */
export declare function packTarballs(repo: string, dest: string): string[];
