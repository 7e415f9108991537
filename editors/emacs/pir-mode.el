;;; pir-mode.el --- Major modes for the Penguin text IR (*.pir) -*- lexical-binding: t; -*-

;; Copyright the pir project. Licensed under the Apache License, Version 2.0.

;; Author: the pir project
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages
;; URL: editors/emacs of the pir repository

;;; Commentary:

;; Penguin IR (`*.pir', pir-spec/2) is the tensoriser IR of the AWS Neuron compiler
;; written as text.  This file gives:
;;
;; * `pir-mode': font-lock of every token class of SPEC §2 (the same classes as the VS Code
;;   TextMate grammar and the Vim syntax file), `//' comments, indentation by bracket depth
;;   (as `pir fmt' indents), and an imenu of kernels;
;; * eglot registration of the language server `pir lsp' for both modes (language id
;;   `penguin-ir'): diagnostics through flymake, hover through eldoc, completion,
;;   go to definition, rename, formatting, code actions;
;; * `pir-ts-mode' (Emacs >= 29 built with tree-sitter): the same on the tree-sitter
;;   grammar of editors/tree-sitter-pir; `M-x pir-ts-install-grammar' compiles it with a
;;   C compiler into `~/.emacs.d/tree-sitter/'.  `pir-mode' is used where it is missing.
;;
;; Install: put this folder on `load-path', then
;;
;;   (require 'pir-mode)
;;   (add-hook 'pir-mode-hook #'eglot-ensure)        ; and `pir-ts-mode-hook'
;;   ;; (setq pir-server-command '("/path/to/pir" "lsp"))  ; when `pir' is not on PATH

;;; Code:

(require 'rx)

(defgroup pir nil
  "The Penguin text IR."
  :group 'languages
  :prefix "pir-")

(defcustom pir-server-command '("pir" "lsp")
  "The command that runs the pir language server, as a list: program and arguments."
  :type '(repeat string))

(defcustom pir-indent-offset 2
  "Columns per level of bracket nesting (the formatter's is 2)."
  :type 'integer
  :safe #'integerp)

(defcustom pir-grammar-directory
  (expand-file-name "../tree-sitter-pir"
                    (file-name-directory (or load-file-name buffer-file-name
                                             default-directory)))
  "The tree-sitter grammar's folder (editors/tree-sitter-pir of the checkout)."
  :type 'directory)

;;;; Faces: one per token class, each inheriting the closest standard face.

(defface pir-op-class-face '((t :inherit font-lock-type-face))
  "Op class names (`MatMulOp').")
(defface pir-op-id-face '((t :inherit font-lock-preprocessor-face))
  "Op ids (`#3').")
(defface pir-field-face '((t :inherit font-lock-variable-name-face))
  "Field names (`dst', `perf_mode').")
(defface pir-local-face '((t :inherit font-lock-variable-name-face :slant italic))
  "Tensors, registers, loop variables and parameters (`%acc').")
(defface pir-global-face '((t :inherit font-lock-function-name-face))
  "Kernels (`@rmsnorm').")
(defface pir-memory-face '((t :inherit font-lock-builtin-face))
  "Memory spaces (`sbuf').")
(defface pir-dtype-face '((t :inherit font-lock-type-face))
  "Dtypes (`bf16').")
(defface pir-enum-face '((t :inherit font-lock-constant-face))
  "Enum values (`double_row', `exp').")
(defface pir-number-face '((t :inherit font-lock-constant-face))
  "Numbers.")
(defface pir-dim-var-face '((t :inherit font-lock-type-face))
  "Dim variables of predicates (`$0').")
(defface pir-call-face '((t :inherit font-lock-function-name-face))
  "Access kinds (`full', `tile').")

;;;; pir-mode.

(defconst pir--ident (rx (any "A-Za-z_") (* (any "A-Za-z0-9_"))))

(defconst pir-memory-spaces '("hbm" "sbuf" "psum" "reg"))

(defconst pir-dtypes
  '("f32" "f32r" "tf32" "bf16" "f16" "f8e4m3" "f8e4m3fn" "f8e5m2" "f8e3m4" "f8e5m2x4"
    "f8e4m3fnx4" "f4e2m1fnx4" "e8m0" "i8" "u8" "i16" "u16" "i32" "u32"))

(defvar pir-mode-syntax-table
  (let ((table (make-syntax-table)))
    ;; `//' to the end of the line.
    (modify-syntax-entry ?/ ". 12" table)
    (modify-syntax-entry ?\n ">" table)
    (modify-syntax-entry ?_ "_" table)
    ;; The sigils belong to their names: `%acc', `@k', `#3', `$0' are one symbol.
    (dolist (c '(?% ?@ ?# ?$))
      (modify-syntax-entry c "_" table))
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    (dolist (c '(?= ?+ ?- ?* ?< ?> ?! ?: ?, ?.))
      (modify-syntax-entry c "." table))
    table)
  "Syntax table of `pir-mode'.")

(defconst pir-font-lock-keywords
  `(;; `reg' is a keyword only at the start of a statement (`reg %r : i32').
    (,(rx (or line-start (any "{}")) (* blank) (group "reg") (+ blank) "%")
     1 'font-lock-keyword-face)
    ;; An op: CLASS [#N] { at the start of a statement.
    (,(rx (or line-start (any "{}")) (* blank) (group (regexp pir--ident))
          (? (+ blank) (group "#" (+ digit))) (* blank) "{")
     (1 'pir-op-class-face) (2 'pir-op-id-face nil t))
    ;; A field: NAME = value (NAME may be a keyword, `step'), not `=='.
    (,(rx symbol-start (group (regexp pir--ident)) (* blank) "=" (not (any "=")))
     1 'pir-field-face)
    (,(rx symbol-start (or "kernel" "tensor" "for" "in" "step") symbol-end)
     . 'font-lock-keyword-face)
    (,(rx symbol-start (or "true" "false") symbol-end) . 'font-lock-constant-face)
    (,(rx "%" (regexp pir--ident)) . 'pir-local-face)
    (,(rx "@" (regexp pir--ident)) . 'pir-global-face)
    (,(rx "#" (+ digit)) . 'pir-op-id-face)
    (,(rx "$" (+ digit)) . 'pir-dim-var-face)
    (,(rx symbol-start "x\"" (* (not (any "\"\n"))) (? "\"")) 0 'font-lock-string-face t)
    ;; Numbers: hex, floats (digits both sides of `.', so `0..2' is 0 .. 2), exponents,
    ;; `inf', `nan', decimals.
    (,(rx symbol-start
          (or (seq "0" (any "xX") (+ (any "0-9A-Fa-f_")))
              (seq digit (* (any "0-9_")) "." digit (* (any "0-9_"))
                   (? (any "eE") (? (any "+-")) digit (* (any "0-9_"))))
              (seq digit (* (any "0-9_")) (any "eE") (? (any "+-")) digit (* (any "0-9_")))
              "inf" "nan"
              (seq digit (* (any "0-9_"))))
          symbol-end)
     . 'pir-number-face)
    (,(regexp-opt pir-memory-spaces 'symbols) . 'pir-memory-face)
    (,(regexp-opt pir-dtypes 'symbols) . 'pir-dtype-face)
    (,(rx symbol-start (group (regexp pir--ident)) (* blank) "(") 1 'pir-call-face)
    ;; Any other name is a value: an enum value (`exp', `double_row').
    (,(rx symbol-start (regexp pir--ident) (* (seq "." (regexp pir--ident))) symbol-end)
     . 'pir-enum-face))
  "Font-lock of `pir-mode': the token classes of SPEC §2, the first match winning.")

(defun pir-indent-line ()
  "Indent the current line by its bracket depth.
One level less when the line starts by closing a bracket, as `pir fmt' indents."
  (interactive)
  (let* ((depth (save-excursion (car (syntax-ppss (line-beginning-position)))))
         (closes (save-excursion
                   (back-to-indentation)
                   (looking-at-p (rx (any "}])")))))
         (column (* pir-indent-offset (max 0 (- depth (if closes 1 0))))))
    (if (<= (current-column) (current-indentation))
        (indent-line-to column)
      (save-excursion (indent-line-to column)))))

(defconst pir-imenu-generic-expression
  `(("Kernels" ,(rx line-start (* blank) "kernel" (+ blank) (group "@" (regexp pir--ident))) 1))
  "Imenu of `pir-mode': its kernels.")

;;;###autoload
(define-derived-mode pir-mode prog-mode "Penguin-IR"
  "Major mode for the Penguin text IR (`*.pir').
Highlighting works without the server; `eglot' runs `pir-server-command'."
  :syntax-table pir-mode-syntax-table
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local comment-start-skip (rx "//" (* blank)))
  (setq-local font-lock-defaults '(pir-font-lock-keywords))
  (setq-local indent-line-function #'pir-indent-line)
  (setq-local indent-tabs-mode nil)
  (setq-local tab-width pir-indent-offset)
  (setq-local electric-indent-chars (append "}])" electric-indent-chars))
  (setq-local imenu-generic-expression pir-imenu-generic-expression))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.pir\\'" . pir-auto-mode))

;;;; eglot.

(defun pir--eglot-contact (&optional _interactive)
  "The eglot contact of the pir server: `pir-server-command'."
  pir-server-command)

;; The language id is SPEC §1's, `penguin-ir' (eglot would send `pir').
(with-eval-after-load 'eglot
  (defvar eglot-server-programs)
  (add-to-list 'eglot-server-programs
               '(((pir-mode :language-id "penguin-ir")
                  (pir-ts-mode :language-id "penguin-ir"))
                 . pir--eglot-contact)))

;;;; pir-ts-mode (Emacs >= 29 with tree-sitter).

(declare-function treesit-available-p "treesit.c")
(declare-function treesit-ready-p "treesit")
(declare-function treesit-parser-create "treesit.c")
(declare-function treesit-font-lock-rules "treesit")
(declare-function treesit-major-mode-setup "treesit")
(declare-function treesit-node-child-by-field-name "treesit.c")
(declare-function treesit-node-text "treesit")
(defvar treesit-font-lock-settings)
(defvar treesit-font-lock-feature-list)
(defvar treesit-simple-indent-rules)
(defvar treesit-defun-type-regexp)
(defvar treesit-defun-name-function)
(defvar treesit-simple-imenu-settings)
(defvar treesit-extra-load-path)

(defun pir-ts--font-lock-settings ()
  "The font-lock rules of `pir-ts-mode': the grammar's highlights.scm, as faces."
  (treesit-font-lock-rules
   :language 'pir :feature 'comment
   '((comment) @font-lock-comment-face)
   :language 'pir :feature 'keyword
   '(["kernel" "tensor" "reg" "for" "in" "step"] @font-lock-keyword-face
     [(true) (false)] @font-lock-constant-face)
   :language 'pir :feature 'definition
   '((global) @pir-global-face
     (op_class) @pir-op-class-face
     (op_id) @pir-op-id-face)
   :language 'pir :feature 'property
   '((field_name) @pir-field-face)
   :language 'pir :feature 'type
   '((memory_space) @pir-memory-face
     (dtype) @pir-dtype-face)
   :language 'pir :feature 'variable
   '((local) @pir-local-face
     (dim_var) @pir-dim-var-face
     (call function: (identifier) @pir-call-face)
     (field value: (identifier) @pir-enum-face)
     (list (identifier) @pir-enum-face)
     (arguments (identifier) @pir-enum-face))
   :language 'pir :feature 'constant
   '([(integer) (float)] @pir-number-face)
   :language 'pir :feature 'string
   '([(string) (bytes)] @font-lock-string-face
     (escape_sequence) @font-lock-escape-face)
   :language 'pir :feature 'operator
   '(["=" ".." "->" "+" "-" "*" ">=" ">" "<=" "<" "==" "!="] @font-lock-operator-face)
   :language 'pir :feature 'bracket
   '(["{" "}" "[" "]" "(" ")"] @font-lock-bracket-face)))

(defvar pir-ts--indent-rules
  `((pir
     ((node-is ,(rx bos (any "}])") eos)) parent-bol 0)
     ((parent-is ,(rx bos (or "block" "field_block" "record" "list" "parameters"
                              "indices" "arguments" "shape")
                      eos))
      parent-bol pir-indent-offset)
     (no-node parent-bol 0)))
  "Indentation of `pir-ts-mode' (the grammar's indents.scm).")

(defun pir-ts--defun-name (node)
  "The name of the kernel NODE."
  (let ((name (treesit-node-child-by-field-name node "name")))
    (and name (treesit-node-text name t))))

;;;###autoload
(define-derived-mode pir-ts-mode pir-mode "Penguin-IR[ts]"
  "Major mode for the Penguin text IR on its tree-sitter grammar (Emacs >= 29).
Falls back to `pir-mode' without the grammar: see `pir-ts-install-grammar'."
  (when (and (fboundp 'treesit-available-p) (treesit-available-p)
             (treesit-ready-p 'pir))
    (treesit-parser-create 'pir)
    (setq-local font-lock-defaults nil)
    (setq-local treesit-font-lock-settings (pir-ts--font-lock-settings))
    (setq-local treesit-font-lock-feature-list
                '((comment definition)
                  (keyword string type property)
                  (constant variable)
                  (operator bracket)))
    (setq-local treesit-simple-indent-rules pir-ts--indent-rules)
    (setq-local treesit-defun-type-regexp (rx bos "kernel" eos))
    (setq-local treesit-defun-name-function #'pir-ts--defun-name)
    (setq-local treesit-simple-imenu-settings '(("Kernel" "\\`kernel\\'" nil nil)))
    (treesit-major-mode-setup)))

(defun pir-ts-install-grammar ()
  "Compile the tree-sitter grammar of `pir-grammar-directory' for `pir-ts-mode'.
Writes `libtree-sitter-pir.so' into the first folder of
`treesit-extra-load-path', or `~/.emacs.d/tree-sitter/', with `cc' (or $CC)."
  (interactive)
  (let* ((src (expand-file-name "src" pir-grammar-directory))
         (dir (or (car (bound-and-true-p treesit-extra-load-path))
                  (locate-user-emacs-file "tree-sitter")))
         (out (expand-file-name (concat "libtree-sitter-pir" module-file-suffix) dir))
         (cc (or (getenv "CC") "cc")))
    (unless (file-exists-p (expand-file-name "parser.c" src))
      (user-error "No parser.c in %s: set `pir-grammar-directory'" src))
    (make-directory dir t)
    (with-temp-buffer
      (unless (zerop (call-process cc nil t nil "-shared" "-fPIC" "-O2" "-std=c11"
                                   "-I" src "-o" out
                                   (expand-file-name "parser.c" src)
                                   (expand-file-name "scanner.c" src)))
        (error "Compiling the pir grammar failed: %s" (buffer-string))))
    (message "pir: tree-sitter grammar installed: %s" out)
    out))

(defun pir-auto-mode ()
  "`pir-ts-mode' where the grammar is installed, else `pir-mode'.
The mode of `auto-mode-alist' for `*.pir' files."
  (if (and (fboundp 'treesit-available-p) (treesit-available-p)
           (treesit-ready-p 'pir t))
      (pir-ts-mode)
    (pir-mode)))

(provide 'pir-mode)
;;; pir-mode.el ends here
