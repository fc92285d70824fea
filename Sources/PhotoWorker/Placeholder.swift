import JSONRPC
import Imaging
enum PhotoWorkerPlaceholder {}
