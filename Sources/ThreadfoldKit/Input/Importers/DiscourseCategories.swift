/// Discourse category names by id, from the forum's `/categories.json` (`{"category_list":
/// {"categories": [...]}}`, subcategories nested in `subcategory_list`) or `/site.json`
/// (`{"categories": [...]}`, subcategories flat with `parent_category_id`). A topic's
/// `category_id` names its category by number only; with these, a subcategory is written
/// "Parent / Child" so two children of one name under different parents stay apart.
package enum DiscourseCategories {
    /// Reads the names, keyed by the id's digits. Errors are located like any JSON's.
    package static func load(json bytes: [UInt8], file: String) throws(ThreadfoldError) -> [String: String] {
        let r = try JSONReader(bytes: bytes, file: file)
        var names: [String: String] = [:]
        var parents: [String: String] = [:]
        do throws(JSONError) {
            let root = try r.object(r.root, "$", expected: "a Discourse /categories.json or /site.json object")
            var stack: [(node: Int, path: String)] = []
            if let list = r.member(root, "category_list") {
                guard let categories = r.member(try r.object(list, "$.category_list"), "categories") else {
                    throw JSONError(node: list, path: "$.category_list.categories", expected: "the forum's categories", found: "none")
                }
                stack.append((categories, "$.category_list.categories"))
            } else if let categories = r.member(root, "categories") {
                stack.append((categories, "$.categories"))
            } else {
                throw JSONError(node: root, path: "$", expected: "category_list.categories (/categories.json) or categories (/site.json)", found: "neither")
            }
            // Nested subcategory lists are walked with a stack; each names its parent.
            var parentOf: [Int: String] = [:]
            while let (array, path) = stack.popLast() {
                for (position, category) in try r.array(array, path).enumerated() {
                    let at = "\(path)[\(position)]"
                    try r.object(category, at)
                    guard let idNode = r.member(category, "id") else {
                        throw JSONError(node: category, path: at + ".id", expected: "a category id", found: "none")
                    }
                    let id = String(try r.int(idNode, at + ".id", expected: "an integer category id"))
                    guard let nameNode = r.member(category, "name") else {
                        throw JSONError(node: category, path: at + ".name", expected: "a category name", found: "none")
                    }
                    names[id] = try r.string(nameNode, at + ".name")
                    if let parent = r.member(category, "parent_category_id") {
                        parents[id] = String(try r.int(parent, at + ".parent_category_id", expected: "an integer category id"))
                    } else if let parent = parentOf[array] {
                        parents[id] = parent
                    }
                    if let sub = r.member(category, "subcategory_list", is: .array) {
                        parentOf[sub] = id
                        stack.append((sub, at + ".subcategory_list"))
                    }
                }
            }
        } catch {
            throw ThreadfoldError.input([r.error(error)])
        }
        var full = names
        for (id, parent) in parents {
            if let parentName = names[parent], let name = names[id] { full[id] = parentName + " / " + name }
        }
        return full
    }
}
