/** A callback that does nothing: a rejection nobody needs, an idle listener's method. One function for every such place. */
export const ignore = (): undefined => undefined;
