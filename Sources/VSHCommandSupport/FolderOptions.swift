public import ArgumentParser
import Foundation

/// `--hunts DIR`: the folder of hunt files `vsh-master` edits.
public struct FolderOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The folder of hunt files (env VSH_HUNTS, default ./hunts).", valueName: "dir"))
    public var hunts: String?

    public init() {}

    public var directory: String {
        hunts ?? ProcessInfo.processInfo.environment["VSH_HUNTS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? StoreOptions.defaultHunts
    }
}
