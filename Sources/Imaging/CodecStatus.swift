import CCodecs

/// Turns a CCodecs status code and the library's message into an `ImagingError`.
func codecError(_ status: Int32, format: ImageFormat, message: UnsafePointer<CChar>?) -> ImagingError {
    var text = message.map { String(cString: $0) } ?? ""
    if text.isEmpty { text = "decoder failed (status \(status))" }
    switch Int(status) {
    case Int(CC_TRUNCATED): return .truncated(format: format, message: text)
    case Int(CC_UNSUPPORTED): return .unsupported(format: format, message: text)
    case Int(CC_NOMEM): return .invalidImage(format: format, message: "out of memory: \(text)")
    case Int(CC_LIMIT): return .invalidImage(format: format, message: "safety limit exceeded: \(text)")
    default: return .invalidImage(format: format, message: text)
    }
}

/// Splits the shim's newline-separated warning buffer; `total` counts the ones it did not keep.
func codecWarnings(_ text: UnsafePointer<CChar>?, total: Int32) -> [String] {
    guard let text else { return [] }
    var lines = String(cString: text).split(separator: "\n").map(String.init)
    if Int(total) > lines.count { lines.append("(\(Int(total) - lines.count) more warnings)") }
    return lines
}

/// Runs a CCodecs encoder, which writes a `malloc`ed buffer (released here with `cc_free`) and its message into an
/// error buffer, and takes its bytes; `name` names the encoder in a failure without a message.
func encoded(_ name: String, _ call: (_ out: inout UnsafeMutablePointer<UInt8>?, _ length: inout Int,
                                      _ error: UnsafeMutableBufferPointer<CChar>) -> Int32) -> Result<[UInt8], ImagingError> {
    var out: UnsafeMutablePointer<UInt8>? = nil
    var length = 0
    var error = [CChar](repeating: 0, count: 256)
    let status = error.withUnsafeMutableBufferPointer { call(&out, &length, $0) }
    defer { cc_free(out) }
    guard status == CC_OK, let out else {
        let text = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return .failure(.encodingFailed(message: text.isEmpty ? "\(name) encoder failed (status \(status))" : text))
    }
    return .success([UInt8](UnsafeBufferPointer(start: out, count: length)))
}

/// `width * height` without overflow traps (hostile headers can declare anything).
func pixelCount(_ width: Int, _ height: Int) -> Int {
    let (product, overflow) = width.multipliedReportingOverflow(by: height)
    return overflow ? Int.max : product
}

/// Refuses stored dimensions over the caller's budget, before anything is allocated. Whatever the budget,
/// the RGBA buffer size must also be representable (so a huge `maxPixels` cannot turn into a trap).
func checkPixelBudget(width: Int, height: Int, options: DecodeOptions) throws(ImagingError) {
    let count = pixelCount(width, height)
    if count > options.maxPixels || count > Int.max / 8 {
        throw .tooLarge(width: width, height: height, limit: options.maxPixels)
    }
}
