print("photoworker")
