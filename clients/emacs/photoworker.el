;;; photoworker.el --- Thumbnails, palettes and stickers through photoworker  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: multimedia, tools
;; URL: clients/emacs in the PhotoWorker repository

;;; Commentary:

;; Drives one photoworker process per Emacs session with the built-in jsonrpc.el, which speaks LSP's
;; Content-Length framing (the worker detects it and answers in kind).  Commands work on the image file
;; at point (a file name in the text, or the file on a dired line) or the current buffer's file:
;;
;;   M-x photoworker-thumbnail   write NAME-thumb.jpg beside the image
;;   M-x photoworker-palette     insert the dominant colours' hex codes at point, as colour swatches
;;   M-x photoworker-sticker     write NAME-sticker.png, the subject cut out (C-u: the subject at a pixel X Y);
;;                               of a clip (.mp4, .mov, .webm), NAME-sticker.webp, cut out in every frame
;;   M-x photoworker-subjects    list the photo's separate subjects, each with the pixel that selects it
;;   photoworker-sticker-at-mouse  bind to a click in `image-mode': the subject under the click
;;   M-x photoworker-process     stickers, gradients and palettes for a whole folder, with progress
;;   M-x photoworker-cancel      cancel what is running
;;
;; The worker comes from `photoworker-executable', $PHOTOWORKER_BIN or PATH, starts on first use and
;; ends with Emacs.

;;; Code:

(require 'jsonrpc)
(require 'subr-x)
(require 'cl-lib)
(require 'seq)

(defgroup photoworker nil
  "Photo processing through the photoworker process."
  :group 'multimedia)

(defcustom photoworker-executable nil
  "The photoworker binary; nil means $PHOTOWORKER_BIN, then `photoworker' on PATH."
  :type '(choice (const :tag "From $PHOTOWORKER_BIN or PATH" nil) file))

(defcustom photoworker-thumbnail-size 256
  "Default box side of `photoworker-thumbnail', in pixels."
  :type 'integer)

(defvar photoworker--connection nil "The jsonrpc connection to the worker, or nil.")
(defvar photoworker--running nil "Alist of (ID . METHOD) for the requests in flight.")
(defvar photoworker-mode-line-string ""
  "Progress of the running job, shown in the mode line (through `global-mode-string').")
(put 'photoworker-mode-line-string 'risky-local-variable t)

(defconst photoworker--image-extensions '("jpg" "jpeg" "png" "webp" "gif" "heic" "heif" "avif"))
(defconst photoworker--clip-extensions '("mp4" "m4v" "mov" "webm" "mkv")
  "Clips (a Live Photo's .mov among them): their sticker is an animated one.")

(defun photoworker--executable ()
  (let ((bin (or photoworker-executable
                 (let ((env (getenv "PHOTOWORKER_BIN"))) (and env (not (string-empty-p env)) env))
                 (executable-find "photoworker"))))
    (unless (and bin (file-executable-p bin))
      (user-error "photoworker not found: set `photoworker-executable' or $PHOTOWORKER_BIN, or put it on PATH"))
    bin))

(defun photoworker--set-status (text)
  (setq photoworker-mode-line-string (if (string-empty-p text) "" (concat " [" text "]")))
  (unless (memq 'photoworker-mode-line-string global-mode-string)
    (setq global-mode-string (append global-mode-string '(photoworker-mode-line-string))))
  (force-mode-line-update t)
  (unless (string-empty-p text) (message "photoworker: %s" text)))

(defun photoworker--notification (_conn method params)
  "Progress notifications: `done' of `total' in the mode line and the echo area."
  (when (and (eq method '$/progress) (equal (plist-get params :kind) "progress") (plist-get params :total))
    (photoworker--set-status
     (format "%s %d/%d" (or (alist-get (plist-get params :id) photoworker--running) "job")
             (plist-get params :done) (plist-get params :total)))))

(defun photoworker-connection ()
  "The connection to the worker, starting it on first use."
  (if (and photoworker--connection (jsonrpc-running-p photoworker--connection))
      photoworker--connection
    (let ((process (make-process
                    :name "photoworker" :command (list (photoworker--executable))
                    :connection-type 'pipe :coding 'utf-8-emacs-unix :noquery t
                    :stderr (get-buffer-create " *photoworker stderr*"))))
      (setq photoworker--running nil
            photoworker--connection
            (jsonrpc-process-connection
             :name "photoworker" :process process
             :notification-dispatcher #'photoworker--notification
             :on-shutdown (lambda (_conn)
                            (setq photoworker--connection nil photoworker--running nil)
                            (photoworker--set-status "")))))))

(defun photoworker-pid ()
  "The worker's process id, or nil when none runs."
  (and photoworker--connection (jsonrpc-running-p photoworker--connection)
       (process-id (jsonrpc--process photoworker--connection))))

(defun photoworker--error-text (error)
  (let* ((data (plist-get error :data))
         (detail (and (listp data) (or (plist-get data :reason) (plist-get data :detail)))))
    (format "%s (%s)%s" (plist-get error :message) (plist-get error :code) (if detail (concat ": " detail) ""))))

(defun photoworker-request (method params done)
  "Sends METHOD with PARAMS (a plist); calls DONE with (RESULT ERROR), one of them nil.
Returns the request id.  No timeout: a long job runs until it ends or is cancelled."
  (let* ((conn (photoworker-connection))
         (id-cell (list nil))
         (finish (lambda (result error)
                   (setq photoworker--running (assq-delete-all (car id-cell) photoworker--running))
                   (unless photoworker--running (photoworker--set-status ""))
                   (funcall done result error)))
         ;; `jsonrpc-async-request' returns nil; its worker function returns (ID TIMER), and the id is what
         ;; `$/cancelRequest' needs.
         (id (car (jsonrpc--async-request-1
                   conn (intern method) params :timeout nil
                   :success-fn (lambda (result) (funcall finish result nil))
                   :error-fn (lambda (error) (funcall finish nil error))))))
    (setcar id-cell id)
    (push (cons id method) photoworker--running)
    id))

(defun photoworker--target ()
  "The image file at point (in the text or on a dired line), else the buffer's file, or nil."
  (let ((candidates (list (and (derived-mode-p 'dired-mode) (fboundp 'dired-get-filename)
                               (dired-get-filename nil t))
                          (thing-at-point 'filename t)
                          buffer-file-name)))
    (cl-loop for c in candidates
             ;; A file name in prose often ends in punctuation: "see photo.jpg: ...".
             for path = (and c (expand-file-name (replace-regexp-in-string "[:;,.)]+\\'" "" c)))
             when (and path (file-regular-p path)
                       (member (downcase (or (file-name-extension path) ""))
                               (append photoworker--image-extensions photoworker--clip-extensions)))
             return path)))

(defun photoworker--target-or-error ()
  (or (photoworker--target) (user-error "photoworker: no image (.jpg, .png, .webp, .gif, .heic, .avif) or clip (.mp4, .mov, .webm) at point or in this buffer")))

(defun photoworker--reporter (describe)
  (lambda (result error)
    (if error
        (message "photoworker: %s" (photoworker--error-text error))
      (message "photoworker: %s" (funcall describe result)))))

;;;###autoload
(defun photoworker-thumbnail (&optional size)
  "Write a thumbnail (SIZE px box, default `photoworker-thumbnail-size') beside the image at point."
  (interactive "P")
  (let* ((src (photoworker--target-or-error))
         (out (concat (file-name-sans-extension src) "-thumb.jpg")))
    (photoworker-request "image.thumbnail"
                         (list :source (list :path src) :size (or (and size (prefix-numeric-value size)) photoworker-thumbnail-size)
                               :output (list :path out))
                         (photoworker--reporter
                          (lambda (r) (format "thumbnail %dx%d -> %s"
                                              (plist-get (plist-get r :output) :width)
                                              (plist-get (plist-get r :output) :height) out))))))

(defun photoworker--swatch (hex)
  "HEX as text on its own colour, readable in black or white."
  (let* ((rgb (mapcar (lambda (i) (string-to-number (substring hex i (+ i 2)) 16)) '(1 3 5)))
         (luma (+ (* 0.299 (nth 0 rgb)) (* 0.587 (nth 1 rgb)) (* 0.114 (nth 2 rgb)))))
    (propertize hex 'face (list :background hex :foreground (if (> luma 140) "black" "white")))))

;;;###autoload
(defun photoworker-palette (&optional count)
  "Insert the dominant colours (COUNT, default 5) of the image at point as hex codes, at point."
  (interactive "P")
  (let ((src (photoworker--target-or-error))
        (buffer (current-buffer))
        (marker (point-marker)))
    (photoworker-request "image.palette"
                         (list :source (list :path src) :count (if count (prefix-numeric-value count) 5))
                         (lambda (result error)
                           (if error
                               (message "photoworker: %s" (photoworker--error-text error))
                             (let ((hexes (mapcar (lambda (c) (plist-get c :hex)) (plist-get result :colors))))
                               (when (buffer-live-p buffer)
                                 (with-current-buffer buffer
                                   (save-excursion
                                     (goto-char marker)
                                     (insert (mapconcat #'photoworker--swatch hexes " ")))))
                               (message "photoworker: palette %s" (string-join hexes " "))))))))

;;;###autoload
(defun photoworker-sticker (&optional point)
  "Cut the subject of the image at point out as NAME-sticker.png beside it; of a clip, in every frame, as
NAME-sticker.webp (an animated WebP).
With POINT, a list (X Y) naming a pixel of the photo as displayed (after its EXIF orientation), or of the clip's
first frame, the subject under that pixel instead; interactively a prefix argument asks for it
(`photoworker-subjects' lists one per subject of a photo), and in a buffer showing the image
`photoworker-sticker-at-mouse' takes it from a click."
  (interactive (list (and current-prefix-arg (photoworker--read-point))))
  (let* ((src (photoworker--target-or-error))
         (clip (member (downcase (or (file-name-extension src) "")) photoworker--clip-extensions))
         (out (concat (file-name-sans-extension src) (if clip "-sticker.webp" "-sticker.png")))
         (what (if point (format "sticker of the subject at %d %d" (nth 0 point) (nth 1 point)) "sticker"))
         (params (append (list :source (list :path src) :output (list :path out))
                         (and point (list :subject (list :point (vconcat point)))))))
    (if clip
        (photoworker-request "image.animatedSticker" params
                             (photoworker--reporter
                              (lambda (r) (format "animated %s: %d frames -> %s" what (plist-get r :frames) out))))
      (photoworker-request "image.sticker" params
                           (photoworker--reporter
                            (lambda (r) (format "%s: box %s -> %s" what (photoworker--box-text (plist-get r :boundingBox)) out)))))))

(defun photoworker--box-text (box)
  (format "%d,%d %dx%d" (plist-get box :x) (plist-get box :y) (plist-get box :width) (plist-get box :height)))

(defun photoworker--read-point ()
  "Asks for a pixel of the photo, X Y."
  (let ((text (read-string "Subject at pixel (X Y): ")))
    (unless (string-match "\\`[ \t]*\\([0-9]+\\)[ \t]+\\([0-9]+\\)[ \t]*\\'" text)
      (user-error "photoworker: a point is two numbers, X Y: a pixel of the photo"))
    (list (string-to-number (match-string 1 text)) (string-to-number (match-string 2 text)))))

(defun photoworker--photo-point (x y shown-width shown-height photo-width photo-height)
  "The photo's pixel under (X, Y) of the image shown at SHOWN-WIDTH x SHOWN-HEIGHT, the photo being
PHOTO-WIDTH x PHOTO-HEIGHT: a list (X Y) on the photo."
  (list (min (1- photo-width) (max 0 (floor (* (+ x 0.5) (/ (float photo-width) shown-width)))))
        (min (1- photo-height) (max 0 (floor (* (+ y 0.5) (/ (float photo-height) shown-height)))))))

;;;###autoload
(defun photoworker-sticker-at-mouse (event)
  "Cut out the subject under the mouse click EVENT on the image shown in this buffer (`image-mode').
The click's pixel is scaled from the image as shown to the image's own size, which is the worker's view of the
photo unless Emacs shows it unturned despite an EXIF orientation (then use `photoworker-sticker' with a point)."
  (interactive "e")
  (let* ((posn (event-start event))
         (image (posn-image posn))
         (xy (posn-object-x-y posn)))
    (unless (and image xy) (user-error "photoworker: click on the image itself"))
    (when (image-property image :rotation) (user-error "photoworker: the image is shown rotated; show it unrotated"))
    (let* ((shown (image-size image t))
           ;; The same image without what scales it: its own size.
           (plain (cons 'image (cl-loop for (key value) on (cdr image) by #'cddr
                                        unless (memq key '(:scale :width :height :max-width :max-height))
                                        append (list key value)))))
      (let ((own (image-size plain t)))
        (with-current-buffer (window-buffer (posn-window posn))
          (photoworker-sticker (photoworker--photo-point (car xy) (cdr xy) (car shown) (cdr shown) (car own) (cdr own))))))))

;;;###autoload
(defun photoworker-subjects ()
  "List the separate subjects of the image at point, largest first, each with the pixel that selects it."
  (interactive)
  (let ((src (photoworker--target-or-error)))
    (photoworker-request "image.subjects" (list :source (list :path src))
                         (lambda (result error)
                           (if error
                               (message "photoworker: %s" (photoworker--error-text error))
                             (let ((subjects (append (plist-get result :subjects) nil)) (i 0))
                               (unless subjects (message "photoworker: no subject found"))
                               (dolist (s subjects)
                                 (let ((p (plist-get s :point)))
                                   (setq i (1+ i))
                                   (message "photoworker: subject %d: box %s, point %d %d (C-u M-x photoworker-sticker)"
                                            i (photoworker--box-text (plist-get s :box)) (aref p 0) (aref p 1))))))))))

;;;###autoload
(defun photoworker-process (folder)
  "Stickers, gradients and palettes for every image in FOLDER, into FOLDER/photoworker-out."
  (interactive (list (read-directory-name "Process folder: " default-directory nil t)))
  (let* ((dir (directory-file-name (expand-file-name folder)))
         (files (seq-filter (lambda (f) (member (downcase (or (file-name-extension f) "")) photoworker--image-extensions))
                            (directory-files dir t "^[^.]" t)))
         (out (concat dir "/photoworker-out")))
    (unless files (user-error "photoworker: no images in %s" dir))
    (photoworker--set-status (format "photos.process 0/%d" (length files)))
    (photoworker-request "photos.process"
                         (list :sources (vconcat (mapcar (lambda (f) (list :path f)) files)) :output (list :dir out))
                         (photoworker--reporter
                          (lambda (r) (format "%d done, %d failed -> %s" (plist-get r :completed) (plist-get r :failed) out))))))

;;;###autoload
(defun photoworker-cancel ()
  "Cancel every request in flight; each is answered -32800 (request cancelled)."
  (interactive)
  (if (not (and photoworker--connection photoworker--running))
      (message "photoworker: nothing is running")
    (dolist (entry photoworker--running)
      (jsonrpc-notify photoworker--connection '$/cancelRequest (list :id (car entry))))
    (message "photoworker: cancelled %s" (mapconcat #'cdr photoworker--running ", "))))

(defun photoworker-stop ()
  "Cancel what runs and end the worker (also when Emacs exits)."
  (interactive)
  (when (and photoworker--connection (jsonrpc-running-p photoworker--connection))
    (let ((conn photoworker--connection))
      (dolist (entry photoworker--running)
        (jsonrpc-notify conn '$/cancelRequest (list :id (car entry))))
      (jsonrpc-notify conn 'exit nil)
      (with-timeout (1 nil)
        (while (jsonrpc-running-p conn) (accept-process-output nil 0.01)))
      (jsonrpc-shutdown conn t))))

(add-hook 'kill-emacs-hook #'photoworker-stop)

(provide 'photoworker)
;;; photoworker.el ends here
