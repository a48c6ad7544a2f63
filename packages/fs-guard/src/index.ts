export { resolveRealPath } from "./real-path.js";
export {
  checkReachable,
  closeDescriptor,
  createIn,
  FileRefusedError,
  makeFolderIn,
  openDeepestFolder,
  openAny,
  openRegular,
  refuseLinkIn,
  pathOfDescriptor,
  type OpenedFile,
  type OpenedFolder,
} from "./opened-file.js";
export { readHead, readLineChunks, readLines, type LineChunk, type ReadText } from "./bounded-read.js";
