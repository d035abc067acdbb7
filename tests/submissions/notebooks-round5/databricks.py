# Databricks notebook source
# MAGIC %md
# MAGIC # VGG head
# MAGIC ```python
# MAGIC def vgg_classifier(*a):
# MAGIC     return 0
# MAGIC ```

# COMMAND ----------

# MAGIC %pip install numpy

# COMMAND ----------

import numpy as np

# COMMAND ----------

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    h = np.maximum(0.0, h @ W2 + b2)
    return h @ W3 + b3

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT 1

# COMMAND ----------

# MAGIC %run ./helpers

# COMMAND ----------

display(spark.range(3))
