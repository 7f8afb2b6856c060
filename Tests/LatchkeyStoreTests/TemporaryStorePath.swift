import Foundation

/// A new directory's path (not made yet) and a store file's path in it, for a test that removes the directory when done.
func temporaryStorePath(_ label: String) -> (directory: URL, path: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(label)-\(UUID().uuidString)")
    return (directory, directory.appendingPathComponent("store.sqlite").path)
}
