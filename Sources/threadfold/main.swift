import Foundation
import ThreadfoldCLI

CLI.removeStagingOnSignals()
exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
