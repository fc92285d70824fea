import JSONRPC
import Imaging
import JSONRPCTransport

/// What a request says about a sticker's cut beyond its outline: the subject (``SubjectSpec``, and where it sits in
/// the params, for errors) and whether the soft edge takes the subject's own colour (`decontaminate`, default true).
public struct StickerCutSpec: Sendable {
    public var subject: SubjectSpec?
    public var subjectPath = "subject"
    public var decontaminate = Self.decontaminateParam.defaultValue

    /// `decontaminate` on every method that cuts a sticker: its default and description, stated once.
    public static let decontaminateParam = FlagParam("decontaminate", default: true, description: "The sticker's soft edge takes the subject's estimated own colour (foreground estimation), not the photo's mix with its old background (a halo on a new backdrop). Default true; false keeps the photo's colours. The alpha is the same either way.")

    public init(subject: SubjectSpec? = nil, subjectPath: String = "subject",
                decontaminate: Bool = Self.decontaminateParam.defaultValue) {
        self.subject = subject; self.subjectPath = subjectPath; self.decontaminate = decontaminate
    }

    /// A batch's cuts, one per source: `subjects[i]` at `subjects[i]`, or none.
    /// - Throws: -32602 at `subjects` when there are not as many as sources.
    static func perSource(_ subjects: [SubjectSpec?]?, count: Int, decontaminate: Bool) throws -> [StickerCutSpec] {
        guard let subjects else { return Array(repeating: StickerCutSpec(decontaminate: decontaminate), count: count) }
        guard subjects.count == count else {
            throw RPCError.invalidParams(path: "subjects", "\(subjects.count) entries for \(count) sources")
        }
        return subjects.enumerated().map {
            StickerCutSpec(subject: $0.element, subjectPath: "subjects[\($0.offset)]", decontaminate: decontaminate)
        }
    }
}
