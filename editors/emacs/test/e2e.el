;;; e2e.el --- End-to-end test of pir-mode.el with eglot and the real `pir lsp' -*- lexical-binding: t; -*-

;;; Commentary:

;; PIR_BIN=target/debug/pir PIR_CORPUS=tests/corpus \
;;   emacs --batch -q -l editors/emacs/test/e2e.el
;;
;; (`-q', not `-Q': Debian's site-start puts its elpa packages, elpa-eglot among them, on
;; `load-path'.)  Opens a copy of a corpus file and checks, each with a timeout: the major
;; mode and its font-lock, the indentation, eglot connecting to `pir lsp' through the
;; registration in `eglot-server-programs' (language id `penguin-ir'), the file's P203
;; arriving as a flymake diagnostic on its line, a hover on an op answering with its BIR,
;; `pir-ts-install-grammar' compiling the tree-sitter grammar (loaded where Emacs has
;; tree-sitter, >= 29; Debian 12's is 28) and the server exiting 0.  Prints one line per check and `emacs e2e: N passed, M failed'; exits 0 when all
;; pass.  First, pir-mode.el byte-compiles with warnings as errors.

;;; Code:

(require 'cl-lib)

(defvar pir-e2e--root
  (expand-file-name "../../.." (file-name-directory (or load-file-name buffer-file-name))))

(add-to-list 'load-path (expand-file-name "editors/emacs" pir-e2e--root))
(require 'pir-mode)
(require 'eglot)

(when (getenv "PIR_BIN")
  (setq pir-server-command (list (getenv "PIR_BIN") "lsp")))
(require 'flymake)

(defvar pir-e2e--timeout 30 "Seconds per wait.")

(defun pir-e2e--wait (what pred)
  "Wait until PRED returns non-nil, and return its value; fail naming WHAT."
  (let ((deadline (+ (float-time) pir-e2e--timeout))
        value)
    (while (and (not (setq value (funcall pred)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or value (error "Timed out after %d s waiting for %s" pir-e2e--timeout what))))

(defun pir-e2e--goto (text &optional token)
  "Move point to TOKEN (default TEXT) on the first line containing TEXT."
  (goto-char (point-min))
  (unless (search-forward text nil t)
    (error "%S not in the buffer" text))
  (beginning-of-line)
  (search-forward (or token text) (line-end-position))
  (goto-char (match-beginning 0)))

(defvar treesit-extra-load-path)
(defvar pir-e2e--buffer nil)
(defvar pir-e2e--server nil)

(defconst pir-e2e--checks
  (list
   (cons "pir-mode.el byte-compiles without a warning"
         (lambda ()
           (let* ((dir (make-temp-file "pir-emacs-elc" t))
                  (byte-compile-error-on-warn t)
                  (byte-compile-dest-file-function
                   (lambda (_) (expand-file-name "pir-mode.elc" dir))))
             (unwind-protect
                 (unless (byte-compile-file
                          (expand-file-name "editors/emacs/pir-mode.el" pir-e2e--root))
                   (error "Byte-compiling pir-mode.el failed: %s"
                          (with-current-buffer (get-buffer-create byte-compile-log-buffer)
                            (buffer-string))))
               (delete-directory dir t)))))
   (cons "pir-mode on a *.pir file"
         (lambda ()
           (let* ((corpus (or (getenv "PIR_CORPUS")
                              (expand-file-name "tests/corpus" pir-e2e--root)))
                  (dir (make-temp-file "pir-emacs-e2e" t))
                  (file (expand-file-name "rule_P203_misspelt_field.pir" dir)))
             (copy-file (expand-file-name "rule_P203_misspelt_field.pir" corpus) file)
             (setq pir-e2e--buffer (find-file-noselect file))
             (with-current-buffer pir-e2e--buffer
               (unless (eq major-mode 'pir-mode)
                 (error "The major mode is %s, not pir-mode" major-mode))))))
   (cons "font-lock: op class, field, local, kernel, keyword, dtype, comment"
         (lambda ()
           (with-current-buffer pir-e2e--buffer
             (font-lock-ensure)
             (dolist (case '(("MatMulOp {" "MatMulOp" pir-op-class-face)
                             ("stationary = %lhs_tile" "stationary" pir-field-face)
                             ("stationary = %lhs_tile" "%lhs_tile" pir-local-face)
                             ("kernel @rule_p203" "@rule_p203" pir-global-face)
                             ("kernel @rule_p203" "kernel" font-lock-keyword-face)
                             ("tensor %acc" "psum" pir-memory-face)
                             ("tensor %acc" "f32" pir-dtype-face)
                             ("isTranpose = false" "false" font-lock-constant-face)
                             ("// Rule P203" "Rule" font-lock-comment-face)))
               (pir-e2e--goto (nth 0 case) (nth 1 case))
               (let ((face (get-text-property (point) 'face)))
                 (unless (or (eq face (nth 2 case))
                             (and (listp face) (memq (nth 2 case) face)))
                   (error "The face of %S is %S, not %s" (nth 1 case) face (nth 2 case))))))))
   (cons "indentation by bracket depth"
         (lambda ()
           (with-current-buffer pir-e2e--buffer
             (pir-e2e--goto "moving = %rhs_tile")
             (indent-line-to 0)
             (indent-according-to-mode)
             (unless (= (current-indentation) 4)
               (error "A field of an op in a kernel is indented %d, not 4"
                      (current-indentation)))
             (pir-e2e--goto "isTranpose = false")
             (forward-line 1)
             (indent-according-to-mode)
             (unless (= (current-indentation) 2)
               (error "The op's `}' is indented %d, not 2" (current-indentation)))
             (set-buffer-modified-p nil))))
   (cons "eglot connects to `pir lsp' (penguin-ir)"
         (lambda ()
           (with-current-buffer pir-e2e--buffer
             (let ((contact (eglot--guess-contact)))
               ;; (MODES PROJECT CLASS CONTACT LANGUAGE-ID)
               (unless (equal (nth 4 contact) "penguin-ir")
                 (error "The language id is %S, not penguin-ir" (nth 4 contact)))
               (unless (equal (nth 3 contact) pir-server-command)
                 (error "The server command is %S, not %S" (nth 3 contact) pir-server-command))
               (apply #'eglot contact))
             (setq pir-e2e--server
                   (pir-e2e--wait "eglot to connect"
                                  (lambda () (eglot-current-server))))
             (let ((info (plist-get (eglot--server-info pir-e2e--server) :name)))
               (unless (equal info "pir")
                 (error "The server calls itself %S" info))))))
   (cons "the file's P203 arrives as a flymake diagnostic on its line"
         (lambda ()
           (with-current-buffer pir-e2e--buffer
             (let* ((diag (pir-e2e--wait
                           "a P203 diagnostic"
                           (lambda ()
                             ;; Flymake starts after a command; a batch session has none.
                             (unless (flymake-running-backends) (flymake-start))
                             (cl-find-if (lambda (d)
                                           (string-match-p "P203" (flymake-diagnostic-text d)))
                                         (flymake-diagnostics)))))
                    (line (line-number-at-pos (flymake-diagnostic-beg diag))))
               (pir-e2e--goto "isTranpose = false")
               (unless (= line (line-number-at-pos))
                 (error "P203 is on line %d, not %d: %s" line (line-number-at-pos)
                        (flymake-diagnostic-text diag)))
               (unless (eq (flymake-diagnostic-type diag) 'eglot-error)
                 (error "P203 is a %s, not an error" (flymake-diagnostic-type diag)))))))
   (cons "hover on an op answers with its BIR"
         (lambda ()
           (with-current-buffer pir-e2e--buffer
             (pir-e2e--goto "MatMulOp {" "MatMulOp")
             (let* ((hover (jsonrpc-request pir-e2e--server :textDocument/hover
                                            (eglot--TextDocumentPositionParams)))
                    (contents (plist-get hover :contents))
                    (text (if (stringp contents) contents
                            (or (plist-get contents :value) (format "%S" contents)))))
               (unless (string-match-p "\"opcode\": \"Matmult\"" text)
                 (error "The hover on MatMulOp has no Matmult: %s" text))))))
   (cons "pir-ts-install-grammar compiles the grammar (pir-ts-mode loads it on Emacs >= 29)"
         (lambda ()
           (let* ((dir (make-temp-file "pir-emacs-ts" t))
                  (treesit-extra-load-path (list dir))
                  (out (pir-ts-install-grammar)))
             (unwind-protect
                 (progn
                   (unless (and (file-exists-p out) (> (file-attribute-size (file-attributes out)) 10000))
                     (error "No grammar library at %s" out))
                   (when (and (fboundp 'treesit-available-p) (treesit-available-p))
                     (unless (treesit-ready-p 'pir)
                       (error "Emacs cannot load %s" out))))
               (delete-directory dir t)))))
   ;; By hand: `eglot-shutdown' deletes the process right after `exit' (jsonrpc's way).
   (cons "the server exits 0 after shutdown and exit"
         (lambda ()
           (let ((process (jsonrpc--process pir-e2e--server)))
             (jsonrpc-request pir-e2e--server :shutdown nil)
             (jsonrpc-notify pir-e2e--server :exit nil)
             (pir-e2e--wait "the server to exit" (lambda () (not (process-live-p process))))
             (unless (zerop (process-exit-status process))
               (error "The server exited with status %d" (process-exit-status process))))))))

(let ((passed 0) (failed 0))
  (cl-loop for (name . check) in pir-e2e--checks
           do (condition-case err
                  (progn (funcall check)
                         (cl-incf passed)
                         (princ (format "ok   %s\n" name)))
                (error (cl-incf failed)
                       (princ (format "FAIL %s: %s\n" name (error-message-string err)))))
           until (> failed 0))
  (princ (format "emacs e2e: %d passed, %d failed\n" passed failed))
  (when pir-e2e--buffer
    (let ((dir (file-name-directory (buffer-file-name pir-e2e--buffer))))
      (kill-buffer pir-e2e--buffer)
      (delete-directory dir t)))
  (kill-emacs (if (zerop failed) 0 1)))

;;; e2e.el ends here
