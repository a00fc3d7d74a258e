/// libxml2's parser error codes (`xmlParserErrors` in libxml/xmlerror.h), which FoundationXML's
/// `XMLParser` hands on as its error codes, in words: what was found and what was expected.
enum XMLErrorText {
    /// libxml2 stops a text node or an attribute value at this many bytes (`XML_MAX_TEXT_LENGTH`)
    /// unless told to parse huge documents, which an export is never read as.
    static let textLimit = "10,000,000 bytes"

    /// The sentence for `code`; an unlisted one still says it is malformed XML, with its code.
    static func describe(_ code: Int) -> String {
        if let text = sentences[code] { return text }
        return "found malformed XML (libxml2 error \(code)); expected a well-formed Disqus export"
    }

    private static let sentences: [Int: String] = [
        1: "found an attribute value or a name longer than libxml2 reads (\(textLimit)), or an internal parser error; expected values of a comment's size",
        2: "ran out of memory reading the XML; expected a document that fits",
        3: "found no start of an XML document; expected '<?xml' or '<disqus>'",
        4: "found no XML; expected a <disqus> document",
        5: "found content after the document's end, or the document cut short; expected one <disqus> element",
        6: "found a malformed hexadecimal character reference; expected '&#x' hex digits and ';'",
        7: "found a malformed decimal character reference; expected '&#' digits and ';'",
        8: "found a character reference to a character XML does not allow; expected a text character",
        9: "found a character XML does not allow; expected text",
        10: "found the file's end inside a character reference; expected ';'",
        14: "found the file's end inside an entity reference; expected ';'",
        22: "found '&' without a name after it; expected an entity such as &amp;",
        23: "found an entity reference without its ';'; expected a name and ';' after '&'",
        26: "found a reference to an entity that is not declared; expected &amp;, &lt;, &gt;, &quot;, &apos; or a character reference",
        31: "found an encoding libxml2 does not know; expected UTF-8",
        32: "found an encoding libxml2 cannot read; expected UTF-8",
        33: "found an attribute value without its opening quote; expected '\"' or \"'\"",
        34: "found an attribute value without its closing quote; expected the quote that opened it",
        38: "found '<' inside an attribute value; expected '&lt;'",
        39: "found an attribute without a quoted value; expected name=\"value\"",
        40: "found an attribute value that is not finished, or longer than libxml2 reads (\(textLimit)); expected a closing quote within that length",
        41: "found an attribute without a value; expected name=\"value\"",
        42: "found an attribute given twice in one tag; expected each attribute once",
        43: "found a literal that is not started; expected a quote",
        44: "found a literal that is not finished; expected its closing quote",
        45: "found a comment that is not finished; expected '-->'",
        46: "found a processing instruction that is not started; expected a name after '<?'",
        47: "found a processing instruction that is not finished; expected '?>'",
        56: "found an XML declaration that is not started; expected '<?xml version=\"1.0\"?>'",
        57: "found an XML declaration that is not finished; expected '?>'",
        61: "found a document type declaration that is not finished; expected '>'",
        62: "found ']]>' outside a CDATA section; expected it only to end one",
        63: "found a CDATA section that is not finished; expected ']]>'",
        64: "found a processing instruction named xml that is not the declaration at the start; expected it only first",
        65: "found no space where XML needs one; expected a space between attributes",
        68: "found no name where a tag or entity needs one; expected a name after '<' or '&'",
        72: "found no '<' where a tag should start; expected '<'",
        73: "found an unfinished tag; expected '>'",
        74: "found no '</' where an end tag should be; expected the open element's end tag",
        75: "found an attribute name without '='; expected name=\"value\"",
        76: "found a closing tag that does not match the open element; expected the open element's end tag",
        77: "found the file's end inside an element; expected its end tag",
        81: "found bytes that are not in the document's encoding; expected UTF-8",
        85: "found elements that are not well balanced; expected each start tag closed in order",
        86: "found content after the document's element; expected the file to end after </disqus>",
        89: "found entities that refer to themselves; expected none",
        96: "found an XML declaration without a version; expected version=\"1.0\"",
        108: "found an XML version libxml2 does not read; expected version=\"1.0\"",
        110: "found a name longer than libxml2 reads (50,000 bytes); expected element and attribute names of usual length",
    ]
}
