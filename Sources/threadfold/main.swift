import Foundation
import ThreadfoldCLI

CLI.removeStagingOnSignals()
CLI.exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
