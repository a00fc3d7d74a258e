import Foundation
import ThreadfoldCLI

exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
