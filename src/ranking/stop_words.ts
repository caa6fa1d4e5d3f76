/** English words too common to index or to be a name. */

/** English words too common to index, lower case. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an the and or but of to in on at for with from by as is are was were be been being am i " +
    "me my mine myself you your yours we our us they them their it its he him his she her this " +
    "that these those do does did have has had will would shall should can could may might must " +
    "not no so than then there here what which who whom whose when where why how all any some " +
    "just very too also into about over up out if oh yeah hey hi").split(" "),
);
