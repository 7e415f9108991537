; Penguin IR indentation for Zed: one level inside each bracket pair.

(_ "{" "}" @end) @indent

(_ "[" "]" @end) @indent

(_ "(" ")" @end) @indent
