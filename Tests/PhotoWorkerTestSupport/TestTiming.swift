import Foundation
import Testing

/// How much slower than a normal debug build the worker under test runs.
///
/// The time limits in these tests are failure guards, not expectations: they only decide how long a
/// broken worker may keep a test waiting. They are generous (ten minutes a suite) because Swift Testing starts
/// every suite at once: on two cores a test's clock runs while thirty workers share them. A one-minute guard once
/// failed a three-sticker test that was merely waiting its turn, and five-minute guards failed thirty tests of a run
/// that took 385 s beside a build (the run takes 190-290 s alone). Under ThreadSanitizer a debug worker runs its pixel work
/// 5-15x slower, so `scripts/test-sanitizers.sh` sets `PHOTOWORKER_TEST_TIME_SCALE` and every guard
/// (message waits, exit waits, `eventually`, suite time limits) stretches by that factor.
package enum TestTiming {
    package static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["PHOTOWORKER_TEST_TIME_SCALE"],
              let value = Int(text), value >= 1 else { return 1 }
        return min(value, 20)
    }()

    /// `duration` stretched by `scale`.
    package static func guarded(_ duration: Duration) -> Duration { duration * scale }

    /// A suite's `.timeLimit` of `minutes`, stretched by `scale`.
    package static func minutes(_ minutes: Int) -> TimeLimitTrait.Duration { .minutes(minutes * scale) }
}
