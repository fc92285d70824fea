/// Which cut-out makes a sticker: `network` (the default) fuses U²-Netp's subject map with the
/// classical colour-model cut; `classical` is the cut alone (saliency, graph cut, face prior), with
/// no network. A result names the one that ran: `network` falls back to `classical` when the model
/// cannot be loaded.
public enum Segmenter: String, Sendable, Codable, CaseIterable {
    case network
    case classical
}
