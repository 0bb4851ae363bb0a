;;; evalkit-eglot.el --- evalkit's language server for rule config files, with eglot  -*- lexical-binding: t; -*-

;; Load it from your init file: (load "/path/to/evalkit-eglot.el"), then M-x eglot in a config file
;; (or add `eglot-ensure' to `yaml-mode-hook'). Eglot shows diagnostics, completion, hover, quick fixes
;; (`eglot-code-actions') and the outline (imenu); it draws no code lenses: hover a rule id for its dry run.
;; When evalkit is not on PATH, set `evalkit-eglot-command' to its full path (.venv/bin/evalkit).

;;; Code:

(require 'eglot)

(defvar evalkit-eglot-command "evalkit"
  "The evalkit program that eglot starts as the language server.")

(defvar evalkit-eglot-initialization-options '(:dryRun t :samples "samples")
  "The server's initialization options (README: Editors).")

(add-to-list 'eglot-server-programs
             `((yaml-mode yaml-ts-mode)
               . ,(lambda (&optional _interactive)
                    (list evalkit-eglot-command "lsp"
                          :initializationOptions evalkit-eglot-initialization-options))))

(provide 'evalkit-eglot)
;;; evalkit-eglot.el ends here
