import Imaging
@testable import PhotoWorker
import PhotoWorkerTestSupport
import Testing

/// The messenger limits are one table (``MessengerLimits``): protocol/README.md shows it as generated, the layout
/// and the animated canvas follow it, and the end-to-end tests read the README's copy.
@Suite(.timeLimit(.minutes(10)))
struct MessengerLimitsTests {
    @Test func theProtocolGuidesTableIsTheWorkers() {
        #expect(MessengerLimitsTable.text == MessengerLimits.markdownTable,
                "protocol/README.md's messenger-limits block differs; it should read:\n\(MessengerLimits.markdownTable)")
    }

    @Test(arguments: MessengerTarget.allCases)
    func theReadmesCopyReadsAsTheTable(_ target: MessengerTarget) {
        let row = MessengerLimitsTable.row(target.rawValue), limits = target.limits
        #expect(row.stillMaxBytes == limits.still.maxBytes && row.animatedMaxBytes == limits.animated.maxBytes
                && row.maxSeconds == limits.motion.maxDuration && row.traySide == limits.tray?.side
                && row.trayMaxBytes == limits.tray?.file.maxBytes, "\(target): \(row) against \(limits)")
    }

    @Test(arguments: MessengerTarget.allCases)
    func aStickerIsLaidOutOnTheTablesCanvas(_ target: MessengerTarget) throws {
        let sticker = Image(width: 300, height: 200)
        let still = try target.layout(sticker, on: .inTurn)
        let frame = try target.layoutFrame(Image(width: 301, height: 199), on: .inTurn)
        switch target.limits.canvas {
        case .longSide(let side):
            #expect(still.width == side && still.height == Int((200.0 * Double(side) / 300).rounded()), "\(still.width)x\(still.height)")
            #expect(frame.width == side && frame.height % 2 == 0 && frame.height <= side, "\(frame.width)x\(frame.height)")
        case .square(let side, _):
            #expect(still.width == side && still.height == side, "\(still.width)x\(still.height)")
            #expect(frame.width == side && frame.height == side, "\(frame.width)x\(frame.height)")
        }
    }

    @Test func theContractStatesTheTable() {
        for target in MessengerTarget.allCases {
            let l = target.limits
            #expect(MessengerLimits.animatedSentence.contains("\(target.rawValue): \(l.canvasWords), \(l.animated.words(still: false))"),
                    "\(MessengerLimits.animatedSentence)")
            #expect(MessengerLimits.stillSentence.contains("\(target.rawValue): \(l.canvasWords), \(l.still.words(still: true))"),
                    "\(MessengerLimits.stillSentence)")
        }
    }
}
