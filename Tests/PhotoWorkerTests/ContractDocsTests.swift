import Foundation
import JSONRPC
import PhotoWorkerTestSupport
@testable import PhotoWorker
import Testing

/// protocol/README.md says the defaults and ranges the decoders and the schema read from one declaration each
/// (``NumberParam``, ``FlagParam``, ``EnumParam``): its prose is written by hand, so this test holds it to them (a
/// default changed in code and not in the README fails here, quoting the words it looked for).
@Suite(.timeLimit(.minutes(10)))
struct ContractDocsTests {
    static let readme: String = {
        let url = Corpus.packageRoot.appendingPathComponent("protocol/README.md")
        // The prose wraps at 120 columns: compare with every run of whitespace as one space.
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.replacing(/\s+/, with: " ")
    }()

    /// `low-high` of an integer parameter's bounds, as the README writes a range.
    static func range(_ param: NumberParam<Int>, separator: String = "-") -> String {
        let schema = param.schemaValue()
        return "\(schema["minimum"]?.intValue ?? -1)\(separator)\(schema["maximum"]?.intValue ?? -1)"
    }

    @Test("The README says each default and range as the contract's declarations do", arguments: [
        // output (a still's)
        #""quality"?: \#(range(OutputSpec.qualityRule))"#,
        #""compressionLevel"?: \#(range(OutputSpec.compressionLevelRule))"#,
        "1 fastest, \(OutputSpec.compressionLevelRule.standard) default",
        // outline
        #""width"?: \#(range(OutlineSpec.widthRule)) (default \#(OutlineSpec.standard.width))"#,
        "draws the same outline: \(OutlineSpec.standard.width) px of white",
        // an animated sticker's output
        "`quality` \(range(AnimatedOutputSpec.qualityRule)) (default \(AnimatedOutputSpec.standardQuality))",
        "an animated sticker's quality without a `target` (\(AnimatedOutputSpec.standardQuality),",
        // image.subjects, decontaminate, a batch's animated format
        "`max` (\(range(ImageSubjectsMethod.subjectLimit, separator: "...")), default \(ImageSubjectsMethod.subjectLimit.standard))",
        // image.animatedSticker
        "at most \(Int(ImageAnimatedStickerMethod.Rules.fastSourceRate)) fps when it is faster), `size`",
        "the frames the subject is cut in (default \(ImageAnimatedStickerMethod.Rules.size.standard))",
        "`keyFrameInterval` seconds apart (default \(ImageAnimatedStickerMethod.Rules.keyFrameInterval.standard);",
        "(`\"canvas\"`, default `\"\(ImageAnimatedStickerMethod.canvas.defaultValue.rawValue)\"`)",
        "(`\"decontaminate\"`, default \(StickerCutSpec.decontaminateParam.defaultValue)",
        "(default `\(AnimatedSpec.formatParam.defaultValue.rawValue)`, animated WebP)",
    ])
    func readmeSaysTheDeclaredDefaults(words: String) {
        #expect(Self.readme.contains(words), "protocol/README.md does not say: \(words)")
    }
}
