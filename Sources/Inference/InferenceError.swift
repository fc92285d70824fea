/// What can go wrong loading or running a network, as values.
public enum InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model's files are missing from the resource bundle.
    case modelMissing(String)
    /// The graph or weights do not fit together (wrong size, unknown op, bad tensor reference).
    case modelDamaged(String)
    /// The input is not the shape the network takes.
    case badInput(String)

    public var description: String {
        switch self {
        case .modelMissing(let s): "model missing: \(s)"
        case .modelDamaged(let s): "model damaged: \(s)"
        case .badInput(let s): "bad input: \(s)"
        }
    }
}

extension InferenceError {
    /// The value `body` makes, or why it could not: an ``InferenceError`` as it is, any other error
    /// as a damaged model (loading reads files and decodes them; nothing else can fail there).
    public static func result<T>(of body: () throws -> T) -> Result<T, InferenceError> {
        do {
            return .success(try body())
        } catch let e as InferenceError {
            return .failure(e)
        } catch {
            return .failure(.modelDamaged("\(error)"))
        }
    }
}
