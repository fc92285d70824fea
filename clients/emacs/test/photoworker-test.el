;;; photoworker-test.el --- Headless tests of photoworker.el against the built worker  -*- lexical-binding: t; -*-

;; emacs --batch -Q -L clients/emacs -l clients/emacs/test/photoworker-test.el -f ert-run-tests-batch-and-exit
;; Needs $PHOTOWORKER_BIN and $PHOTOWORKER_CORPUS; writes the worker's pid to $PHOTOWORKER_TEST_OUT.pid so the
;; runner can check that no worker outlives Emacs.

;;; Code:

(require 'ert)
(require 'photoworker)

(defvar photoworker-test--scratch (make-temp-file "photoworker-test" t))

(defun photoworker-test--wait (predicate seconds)
  "Runs the event loop until PREDICATE holds or SECONDS pass; returns PREDICATE's value."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.01))
    (funcall predicate)))

(defun photoworker-test--photo (name &optional folder)
  (let* ((dir (expand-file-name (or folder "") photoworker-test--scratch))
         (dest (expand-file-name name dir)))
    (make-directory dir t)
    (copy-file (expand-file-name (concat "photos/" name) (getenv "PHOTOWORKER_CORPUS")) dest t)
    dest))

(defun photoworker-test--messages ()
  (with-current-buffer "*Messages*" (buffer-string)))

(ert-deftest photoworker-palette-inserts-swatches-at-point ()
  (let ((girl (photoworker-test--photo "girl-1.jpg")))
    (with-temp-buffer
      (insert "colours of " girl ": ")
      (goto-char (point-min))
      (search-forward "girl-1")
      (let ((insert-at (save-excursion (goto-char (point-max)) (point-marker))))
        (goto-char insert-at)
        ;; The file name is before point on this line: put point on it, insert after the line.
        (search-backward "girl-1")
        (photoworker-palette 4)
        (should (photoworker-test--wait (lambda () (string-match-p "#[0-9A-Fa-f]\\{6\\}" (buffer-string))) 30))
        (should (= 4 (how-many "#[0-9A-Fa-f]\\{6\\}" (point-min) (point-max))))
        (goto-char (point-min))
        (re-search-forward "#[0-9A-Fa-f]\\{6\\}")
        (should (plist-get (get-text-property (match-beginning 0) 'face) :background))))
    (with-temp-file (concat (getenv "PHOTOWORKER_TEST_OUT") ".pid")
      (insert (number-to-string (photoworker-pid))))))

(ert-deftest photoworker-palette-of-a-heic-at-point ()
  "The phone's formats count as images at point."
  (let ((heic (expand-file-name "girl.heic" photoworker-test--scratch)))
    (make-directory photoworker-test--scratch t)
    (copy-file (expand-file-name "formats/girl.heic" (getenv "PHOTOWORKER_CORPUS")) heic t)
    (with-temp-buffer
      (insert "colours of " heic ": ")
      (goto-char (point-min))
      (search-forward "girl.heic")
      (search-backward "girl")
      (photoworker-palette 3)
      (should (photoworker-test--wait (lambda () (string-match-p "#[0-9A-Fa-f]\\{6\\}" (buffer-string))) 30)))))

(ert-deftest photoworker-thumbnail-and-sticker-of-the-visited-image ()
  (let ((girl (photoworker-test--photo "girl-1.jpg")))
    (with-current-buffer (find-file-noselect girl t t)
      (photoworker-thumbnail 64)
      (should (photoworker-test--wait (lambda () (file-exists-p (concat (file-name-sans-extension girl) "-thumb.jpg"))) 30))
      (photoworker-sticker)
      (should (photoworker-test--wait (lambda () (file-exists-p (concat (file-name-sans-extension girl) "-sticker.png"))) 60))
      (kill-buffer))))

(ert-deftest photoworker-animated-sticker-of-a-clip-at-point ()
  "A clip at point: its sticker is animated, cut in every frame."
  (let ((clip (expand-file-name "cutout.mp4" photoworker-test--scratch)))
    (make-directory photoworker-test--scratch t)
    (copy-file (expand-file-name "motion/cutout.mp4" (getenv "PHOTOWORKER_CORPUS")) clip t)
    (with-temp-buffer
      (insert "the clip " clip)
      (goto-char (point-min))
      (search-forward "cutout")
      (photoworker-sticker)
      (should (photoworker-test--wait
               (lambda () (string-match-p "animated sticker: 12 frames -> " (photoworker-test--messages))) 60))
      (should (file-exists-p (expand-file-name "cutout-sticker.webp" photoworker-test--scratch))))))

(ert-deftest photoworker-process-a-folder-with-progress ()
  (dolist (name '("girl-1.jpg" "animal-2.jpg" "car-1.jpg")) (photoworker-test--photo name "batch"))
  (let* ((dir (expand-file-name "batch" photoworker-test--scratch))
         (seen nil)
         (timer (run-with-timer 0 0.005 (lambda () (push photoworker-mode-line-string seen)))))
    (photoworker-process dir)
    (should (photoworker-test--wait (lambda () (string-match-p "3 done, 0 failed" (photoworker-test--messages))) 120))
    (cancel-timer timer)
    (should (= 3 (length (directory-files (expand-file-name "photoworker-out" dir) nil "-sticker\\.png\\'"))))
    (should (seq-some (lambda (s) (string-match-p "photos.process [123]/3" s)) seen))))

(ert-deftest photoworker-cancel-answers-the-running-job ()
  (let ((answer nil))
    (photoworker-request "diagnostics.sleep" '(:ms 60000) (lambda (result error) (setq answer (or error result))))
    (photoworker-cancel)
    (should (photoworker-test--wait (lambda () answer) 10))
    (should (equal (plist-get answer :code) -32800))
    (should-not photoworker--running)))

(ert-deftest photoworker-no-image-is-a-clear-error ()
  (with-temp-buffer
    (insert "nothing here")
    (let ((err (should-error (photoworker-palette) :type 'user-error)))
      (should (string-match-p "no image" (cadr err))))))

(ert-deftest photoworker-a-missing-executable-is-a-clear-error ()
  (let ((photoworker-executable "/nonexistent/photoworker")
        (photoworker--connection nil))
    (let ((err (should-error (photoworker-connection) :type 'user-error)))
      (should (string-match-p "not found" (cadr err))))))

(ert-deftest photoworker-subjects-and-the-sticker-a-point-selects ()
  "The two subjects of a two-subject photo are listed with their points; a point cuts that subject alone."
  (let ((pair (expand-file-name "pair.jpg" photoworker-test--scratch)))
    (make-directory photoworker-test--scratch t)
    (copy-file (expand-file-name "subjects/pair.jpg" (getenv "PHOTOWORKER_CORPUS")) pair t)
    (with-temp-buffer
      (setq buffer-file-name pair)
      (photoworker-subjects)
      (should (photoworker-test--wait (lambda () (string-match-p "subject 2: " (photoworker-test--messages))) 60))
      (should (string-match "subject [0-9]: box \\(1[5-9][0-9]\\|[2-9][0-9][0-9]\\),[0-9]+ [0-9]+x[0-9]+, point \\([0-9]+\\) \\([0-9]+\\)"
                            (photoworker-test--messages)))
      (let* ((point (list (string-to-number (match-string 2 (photoworker-test--messages)))
                          (string-to-number (match-string 3 (photoworker-test--messages)))))
             (told (format "sticker of the subject at %d %d: box \\([0-9]+\\)," (nth 0 point) (nth 1 point))))
        (photoworker-sticker point)
        (should (photoworker-test--wait (lambda () (string-match-p told (photoworker-test--messages))) 60))
        (string-match told (photoworker-test--messages))
        (should (>= (string-to-number (match-string 1 (photoworker-test--messages))) 156))
        (should (file-exists-p (expand-file-name "pair-sticker.png" photoworker-test--scratch))))
      (setq buffer-file-name nil))))

(ert-deftest photoworker-the-readmes-click-binding-runs-as-written ()
  "README.md's elisp block, evaluated as written, binds the click in `image-mode'."
  (let ((readme (expand-file-name "README.md" (file-name-directory (locate-library "photoworker")))))
    (with-temp-buffer
      (insert-file-contents readme)
      ;; The block that binds the click (the first one is the set-up, with placeholder paths).
      (should (re-search-forward "^```elisp\n\\((with-eval-after-load 'image-mode\\(?:.\\|\n\\)*?\n\\)```" nil t))
      (eval (car (read-from-string (concat "(progn " (match-string 1) ")"))) t))
    (require 'image-mode)
    (should (eq (lookup-key image-mode-map [S-mouse-1]) #'photoworker-sticker-at-mouse))))

(ert-deftest photoworker-a-click-on-the-shown-image-is-scaled-to-the-photo ()
  ;; Shown at half size: the click's pixel doubles (centres kept), within the photo.
  (should (equal (photoworker--photo-point 10 20 160 120 320 240) '(21 41)))
  (should (equal (photoworker--photo-point 159 119 160 120 320 240) '(319 239)))
  (should (equal (photoworker--photo-point 0 0 640 480 320 240) '(0 0))))


;;; photoworker-test.el ends here
